<?php
// Runs PHP's own preg_match on each case of the JSON file named by the first argument (a list of
// [pattern, subject] pairs), as Laravel's `regex:` rule calls it, and prints one JSON list of
// what it returned: `result` (1, 0, or false), the warning PHP raised (a pattern it refuses:
// Laravel turns it into an exception), and preg_last_error_msg() when it returned false.
// Used by crates/validate/tests/preg.rs, the differential test of eggcat's PCRE2 matching.

$cases = json_decode(file_get_contents($argv[1]), true, 512, JSON_THROW_ON_ERROR);
$out = [];
foreach ($cases as [$pattern, $subject]) {
    $warning = null;
    set_error_handler(function (int $level, string $message) use (&$warning): bool {
        $warning = $message;
        return true;
    });
    $result = preg_match($pattern, $subject);
    restore_error_handler();
    $out[] = [
        'result' => $result,
        'warning' => $warning,
        'error' => $result === false ? preg_last_error_msg() : null,
    ];
}
echo json_encode(['pcre' => PCRE_VERSION, 'results' => $out], JSON_INVALID_UTF8_SUBSTITUTE | JSON_THROW_ON_ERROR);
