<?php
// The hashes Pelican's update check computes, as it computes them (issue 37): the command's
// `md5(json_encode(...))` calls `md5` unqualified inside its namespace, so PHP looks for
// `App\Console\Commands\Egg\md5` first. This function is PHP's own `\md5`, which it calls and
// whose result it returns unchanged; it also notes each hash, in order, for the test
// (eggcat_check_hashes()). The command itself is not touched: it runs as written.

namespace App\Console\Commands\Egg {
    function md5(string $string, bool $binary = false): string
    {
        $hash = \md5($string, $binary);
        $GLOBALS['eggcat_md5'][] = $hash;
        return $hash;
    }
}

namespace {
    /**
     * The hashes the update check computed in its last run, `local` (the panel's export) and
     * `remote` (the file at its update URL), then forgotten.
     */
    function eggcat_check_hashes(): ?array
    {
        $hashes = $GLOBALS['eggcat_md5'] ?? [];
        $GLOBALS['eggcat_md5'] = [];
        return count($hashes) === 2 ? ['local' => $hashes[0], 'remote' => $hashes[1]] : null;
    }
}
