<?php
// The panels' own code on eggcat's import files, for crates/panels/tests/differential.rs.
//
// Usage: EGGCAT_PANELS_SRC=../shared/panels-src php differential.php JOBS.json OUT.json
//
// JOBS.json: {"eggs": [{"name", "upstream", "upstream_format", "yaml", "json", "pterodactyl"}],
//             "rules": [{"name", "env", "default", "rules"}]} (paths of files the test wrote).
// OUT.json, per egg: the egg Pelican stores from the upstream file, from Pelican's own YAML and
// JSON export of it imported again (its round trip), and from eggcat's pelican.yaml and
// pelican.json; the real update check's verdict on each eggcat file; the egg Pterodactyl stores
// from pterodactyl.json or the validation errors that refuse it. Per variable of "rules":
// Laravel's validator on the default value against the rules (pass, fail or throws).
// A PHP error that is not the panel refusing the egg is reported as `crash` with its message.

require __DIR__ . '/boot.php';

use App\Enums\EggFormat;
use Illuminate\Console\OutputStyle;
use Illuminate\Database\Capsule\Manager as Capsule;
use Symfony\Component\Console\Input\ArrayInput;
use Symfony\Component\Console\Output\BufferedOutput;

[$_, $jobsFile, $outFile] = $argv;
$jobs = json_decode(file_get_contents($jobsFile), true, 512, JSON_THROW_ON_ERROR);

/** What a panel refusing an egg throws; anything else is a crash. */
function eggcat_is_refusal(Throwable $e): bool
{
    return $e instanceof App\Exceptions\Service\InvalidFileUploadException
        || $e instanceof Pterodactyl\Exceptions\Service\InvalidFileUploadException
        || $e instanceof Pterodactyl\Exceptions\Model\DataValidationException
        || $e instanceof Illuminate\Validation\ValidationException
        || $e instanceof Illuminate\Database\QueryException
        || $e instanceof JsonException
        // A warning turned into an exception, as Laravel does: the import fails.
        || $e instanceof ErrorException;
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
    $attributes['icon_files'] = array_map('md5', $disk->files);
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

/** `p:egg:check-updates` on one egg, with `update_url` answered by `$remote`. */
function eggcat_update_check($egg, string $remote): string
{
    Illuminate\Container\Container::getInstance()->instance(
        Illuminate\Http\Client\Factory::class,
        new class($remote) {
            public function __construct(private string $body) {}
            public function timeout($s) { return $this; }
            public function connectTimeout($s) { return $this; }
            public function get($url) {
                return new class($this->body) {
                    public function __construct(private string $body) {}
                    public function failed(): bool { return false; }
                    public function status(): int { return 200; }
                    public function body(): string { return $this->body; }
                };
            }
        }
    );
    Illuminate\Support\Facades\Http::clearResolvedInstances();
    $command = new App\Console\Commands\Egg\CheckEggUpdatesCommand();
    $out = new BufferedOutput();
    $command->setOutput(new OutputStyle(new ArrayInput([]), $out));
    $check = Closure::bind(fn ($egg, $exporter) => $this->check($egg, $exporter), $command, $command::class);
    $check($egg, new App\Services\Eggs\Sharing\EggExporterService());
    $verdict = trim($out->fetch());
    if (!str_ends_with($verdict, ': Up-to-date')) {
        // Where the two sides differ, read as the command reads them (for the test's message).
        $yaml = str_ends_with($egg->update_url, '.yaml');
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

function eggcat_pelican(array $job): array
{
    $out = [];
    $upstreamFormat = $job['upstream_format'] === 'yaml' ? EggFormat::YAML : EggFormat::JSON;
    $upstream = file_get_contents($job['upstream']);
    $exports = [];
    // (Closures that fill $exports and $out take them by reference; arrow functions copy.)
    $out['upstream'] = eggcat_outcome(function () use ($upstream, $upstreamFormat, &$exports) {
        return eggcat_isolated(function () use ($upstream, $upstreamFormat, &$exports) {
            $egg = eggcat_pelican_import($upstream, $upstreamFormat);
            foreach (['yaml' => EggFormat::YAML, 'json' => EggFormat::JSON] as $key => $format) {
                $exports[$key] = eggcat_outcome(fn () => eggcat_export($egg, $format));
            }
            return eggcat_stored($egg);
        });
    });
    // Pelican's own round trip: the egg it made from the upstream file, exported and imported.
    foreach ($exports as $key => $exported) {
        $format = $key === 'yaml' ? EggFormat::YAML : EggFormat::JSON;
        $out["roundtrip_$key"] = isset($exported['ok'])
            ? eggcat_outcome(fn () => eggcat_isolated(fn () => eggcat_stored(eggcat_pelican_import($exported['ok'], $format))))
            : $exported;
        if ($key === 'yaml' && isset($out['roundtrip_yaml']['refused'], $out['upstream']['ok'])) {
            // Pelican refuses its own YAML export (a text written as a number): the round trip
            // with those values given back as the text it stored from the upstream file.
            $restored = eggcat_restore_text(Symfony\Component\Yaml\Yaml::parse($exported['ok']), $out['upstream']['ok']);
            $text = Symfony\Component\Yaml\Yaml::dump($restored, 10, 2, Symfony\Component\Yaml\Yaml::DUMP_MULTI_LINE_LITERAL_BLOCK | Symfony\Component\Yaml\Yaml::DUMP_OBJECT_AS_MAP);
            $out['roundtrip_yaml'] = eggcat_outcome(fn () => eggcat_isolated(fn () => eggcat_stored(eggcat_pelican_import($text, EggFormat::YAML))));
            $out['roundtrip_yaml_restored'] = true;
        }
    }
    foreach (['yaml' => EggFormat::YAML, 'json' => EggFormat::JSON] as $key => $format) {
        if ($job[$key] === null) {
            continue;
        }
        $file = file_get_contents($job[$key]);
        $out["eggcat_$key"] = eggcat_outcome(function () use ($file, $format, $key, &$out) {
            return eggcat_isolated(function () use ($file, $format, $key, &$out) {
                $egg = eggcat_pelican_import($file, $format);
                $out["check_$key"] = eggcat_outcome(fn () => eggcat_update_check($egg, $file));
                return eggcat_stored($egg);
            });
        });
    }
    return $out;
}

/**
 * `$export` (Pelican's YAML export, parsed) with every egg and variable text field that is not
 * text there given back as `$stored` (the egg Pelican stored from the upstream file) has it.
 */
function eggcat_restore_text(array $export, array $stored): array
{
    foreach (['name', 'author', 'description'] as $field) {
        if (isset($export[$field]) && !is_string($export[$field]) && is_string($stored[$field] ?? null)) {
            $export[$field] = $stored[$field];
        }
    }
    $byEnv = [];
    foreach ($stored['variables'] as $v) {
        $byEnv[$v['env_variable']] = $v;
    }
    foreach ($export['variables'] ?? [] as $i => $v) {
        foreach (['name', 'description', 'default_value'] as $field) {
            $value = $v[$field] ?? null;
            $ok = is_string($value) || ($field === 'default_value' && is_bool($value));
            if (!$ok && isset($byEnv[$v['env_variable']][$field])) {
                $export['variables'][$i][$field] = $byEnv[$v['env_variable']][$field];
            }
        }
    }
    return $export;
}

function eggcat_pterodactyl(string $path): array
{
    $file = new Illuminate\Http\UploadedFile($path, 'egg.json', 'application/json', null, true);
    $importer = new Pterodactyl\Services\Eggs\Sharing\EggImporterService(
        Capsule::connection(),
        new Pterodactyl\Services\Eggs\EggParserService()
    );
    return eggcat_outcome(function () use ($importer, $file, $path) {
        // EggImportFormRequest: `max:1000` (kilobytes) before the parser runs.
        if (filesize($path) > 1000 * 1024) {
            throw new Pterodactyl\Exceptions\Service\InvalidFileUploadException('the file is over 1000 KB');
        }
        return eggcat_isolated(fn () => eggcat_stored($importer->handle($file, 1)->refresh()));
    });
}

function eggcat_rule_verdict(array $v): array
{
    $validator = Illuminate\Container\Container::getInstance()->make(Illuminate\Validation\Factory::class);
    // boot.php's error handler turns warnings (an invalid regex) into exceptions, as Laravel.
    try {
        $fails = $validator->make(['value' => $v['default']], ['value' => $v['rules']])->fails();
        return ['verdict' => $fails ? 'fail' : 'pass'];
    } catch (Throwable $e) {
        return ['verdict' => 'throws', 'message' => get_class($e) . ': ' . $e->getMessage()];
    }
}

$started = microtime(true);
$result = ['eggs' => [], 'rules' => []];
eggcat_schema('pelican');
$result['sqlite_variable_columns'] = eggcat_variable_columns();
$result['sqlite_variables_plan'] = array_map(
    fn ($row) => $row->detail,
    Capsule::connection()->select('explain query plan ' . (new App\Models\Egg(['id' => 1]))->forceFill(['id' => 1])->variables()->toSql(), [1])
);
foreach ($jobs['eggs'] as $job) {
    // The egg at hand, so that a PHP crash that kills the process names it.
    fwrite(STDERR, "egg: {$job['name']}\n");
    $result['eggs'][] = ['name' => $job['name'], 'pelican' => eggcat_pelican($job)];
}
eggcat_schema('pterodactyl');
foreach ($jobs['eggs'] as $i => $job) {
    fwrite(STDERR, "egg: {$job['name']} (Pterodactyl)\n");
    if ($job['pterodactyl'] !== null) {
        $result['eggs'][$i]['pterodactyl'] = eggcat_pterodactyl($job['pterodactyl']);
    }
    if ($job['pterodactyl_upstream']) {
        $result['eggs'][$i]['pterodactyl_upstream'] = eggcat_pterodactyl($job['upstream']);
    }
}
// Laravel's `email` rule, as both panels apply it to `author`.
$validator = Illuminate\Container\Container::getInstance()->make(Illuminate\Validation\Factory::class);
foreach ($jobs['emails'] ?? [] as $address) {
    $result['emails'][] = [$address, !$validator->make(['author' => $address], ['author' => 'email'])->fails()];
}
foreach ($jobs['rules'] as $v) {
    $result['rules'][] = ['name' => $v['name'], 'env' => $v['env']] + eggcat_rule_verdict($v);
}
$result['mysql_sort_sql'] = eggcat_sort_migration_mysql_sql();
$result['seconds'] = microtime(true) - $started;
file_put_contents($outFile, json_encode($result, JSON_THROW_ON_ERROR | JSON_UNESCAPED_SLASHES | JSON_INVALID_UTF8_SUBSTITUTE));
