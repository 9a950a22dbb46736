<?php
// Pelican's import, export and update check as the differential test drives them, shared by
// differential.php (each egg on its own, in a rolled-back transaction) and databases.php (every
// egg kept, on a real database): outcomes (the panel's answer, its refusal, or a crash), the egg
// it stores, the check's verdict with where the two sides differ. Requires boot.php.

use App\Enums\EggFormat;
use Illuminate\Console\OutputStyle;
use Illuminate\Database\Capsule\Manager as Capsule;
use Symfony\Component\Console\Input\ArrayInput;
use Symfony\Component\Console\Output\BufferedOutput;

/**
 * What a panel refusing an egg throws; anything else is a crash, which fails the test. A PHP
 * warning or notice (an ErrorException, boot.php's error handler) is a crash wherever it is
 * raised: in the panel's own code it is a bug the panel answers with a server error, not a
 * verdict on the egg, and elsewhere (Laravel 8, the stand-ins, this harness) it is the test's own
 * fault or a difference from the panel's Laravel. Counting it as a refusal would let an egg
 * that breaks the panel's code pass as one the panel declines.
 */
function eggcat_is_refusal(Throwable $e): bool
{
    return $e instanceof App\Exceptions\Service\InvalidFileUploadException
        || $e instanceof Pterodactyl\Exceptions\Service\InvalidFileUploadException
        || $e instanceof Pterodactyl\Exceptions\Model\DataValidationException
        || $e instanceof Illuminate\Validation\ValidationException
        || $e instanceof Illuminate\Database\QueryException
        || $e instanceof JsonException;
}

function eggcat_outcome(callable $run): array
{
    try {
        return ['ok' => $run()];
    } catch (Throwable $e) {
        $message = $e instanceof Illuminate\Validation\ValidationException
            ? json_encode($e->validator->errors()->toArray())
            : $e->getMessage();
        return [eggcat_is_refusal($e) ? 'refused' : 'crash' => get_class($e) . ': ' . $message];
    }
}

/** The egg as the panel holds it after the import: attributes and variables, casts applied. */
function eggcat_stored($egg): array
{
    $drop = ['id', 'egg_id', 'nest_id', 'created_at', 'updated_at'];
    $attributes = array_diff_key($egg->attributesToArray(), array_flip($drop));
    $attributes['variables'] = $egg->variables->map(
        fn ($v) => array_diff_key($v->toArray(), array_flip($drop))
    )->values()->all();
    $disk = Illuminate\Support\Facades\Storage::disk('public');
    // The egg's own icon (the disk holds every egg's where eggs stay, databases.php).
    $attributes['icon_files'] = array_map('md5', array_filter($disk->files, fn ($path) => str_contains($path, "/$egg->uuid."), ARRAY_FILTER_USE_KEY));
    return $attributes;
}

/** Runs `$run` in a transaction that is rolled back, so each import starts from empty tables. */
function eggcat_isolated(callable $run): mixed
{
    $db = Capsule::connection();
    $db->beginTransaction();
    Illuminate\Support\Facades\Storage::disk('public')->files = [];
    try {
        return $run();
    } finally {
        $db->rollBack();
    }
}

function eggcat_pelican_import(string $content, EggFormat $format)
{
    $importer = new App\Services\Eggs\Sharing\EggImporterService(Capsule::connection());
    return $importer->fromContent($content, $format);
}

function eggcat_export($egg, EggFormat $format): string
{
    return (new App\Services\Eggs\Sharing\EggExporterService())->handle($egg->id, $format);
}

/**
 * Answers the panel's HTTP requests (the update check's and `fromUrl`'s GET) with
 * `$answer($url)`, as a remote server with the file at that URL would. Nothing leaves the machine.
 */
function eggcat_serve(callable $answer): void
{
    Illuminate\Container\Container::getInstance()->instance(
        Illuminate\Http\Client\Factory::class,
        new class($answer) {
            public function __construct(private $answer) {}
            public function timeout($s) { return $this; }
            public function connectTimeout($s) { return $this; }
            public function get($url) {
                return new class(($this->answer)($url)) {
                    public function __construct(private string $body) {}
                    public function failed(): bool { return false; }
                    public function status(): int { return 200; }
                    public function throw() { return $this; }
                    public function body(): string { return $this->body; }
                };
            }
        }
    );
    Illuminate\Support\Facades\Http::clearResolvedInstances();
}

/** `p:egg:check-updates` on one egg, with `update_url` answered by `$remote`. */
function eggcat_update_check($egg, string $remote): string
{
    eggcat_serve(fn ($url) => $remote);
    return eggcat_check($egg, $remote);
}

/**
 * `p:egg:check-updates` on one egg (its `check`, which `handle` runs for every egg), its
 * `update_url` answered as eggcat_serve() was told; `$remote` is that answer, to say where the
 * two sides differ when they do.
 */
function eggcat_check($egg, string $remote): string
{
    // One command for every egg, as `handle` has.
    static $check = null, $out = null;
    if ($check === null) {
        $command = new App\Console\Commands\Egg\CheckEggUpdatesCommand();
        $out = new BufferedOutput();
        $command->setOutput(new OutputStyle(new ArrayInput([]), $out));
        $check = Closure::bind(fn ($egg, $exporter) => $this->check($egg, $exporter), $command, $command::class);
    }
    $check($egg, new App\Services\Eggs\Sharing\EggExporterService());
    $verdict = trim($out->fetch());
    if (!str_ends_with($verdict, ': Up-to-date')) {
        // Where the two sides differ, read as the command reads them (for the test's message).
        $extension = strtolower(pathinfo(parse_url($egg->update_url, PHP_URL_PATH), PATHINFO_EXTENSION));
        $yaml = in_array($extension, ['yaml', 'yml'], true);
        $exported = eggcat_export($egg, $yaml ? EggFormat::YAML : EggFormat::JSON);
        [$local, $remote] = array_map(
            fn ($text) => $yaml ? Symfony\Component\Yaml\Yaml::parse($text) : json_decode($text, true),
            [$exported, $remote]
        );
        unset($local['exported_at'], $remote['exported_at']);
        $verdict .= ' (first difference: ' . eggcat_first_difference($local, $remote, '') . ')';
        // Whether the file differs from the panel's export only by texts its YAML export writes
        // as numbers (which eggcat keeps as text so that the file imports).
        $exporter = new App\Services\Eggs\Sharing\EggExporterService();
        if ($yaml && md5(json_encode($local)) === md5(json_encode($exporter->yamlExport($remote)))) {
            $verdict .= ' [only texts the YAML export writes as numbers]';
        }
    }
    return $verdict;
}

/** The first place two parsed files differ for `json_encode`, key order included. */
function eggcat_first_difference(mixed $panel, mixed $file, string $at): string
{
    if (is_array($panel) && is_array($file)) {
        if (array_keys($panel) !== array_keys($file)) {
            return "$at: keys " . json_encode(array_keys($panel)) . ' in the panel\'s export, ' . json_encode(array_keys($file)) . ' in the file';
        }
        foreach ($panel as $k => $v) {
            if (json_encode($v) !== json_encode($file[$k])) {
                return eggcat_first_difference($v, $file[$k], "$at/$k");
            }
        }
    }
    return "$at: " . json_encode($panel) . ' in the panel\'s export, ' . json_encode($file) . ' in the file';
}

if (!function_exists('now')) {
    function now() { return Illuminate\Support\Carbon::now(); }
}
if (!function_exists('cache')) {
    // The update check stores its verdict for the panel's UI; nothing here reads it.
    function cache() { return new class { public function put(...$args): void {} }; }
}

