<?php
// The panels' own code on eggcat's import files, for crates/panels/tests/differential.rs.
//
// Usage: EGGCAT_PANELS_SRC=../shared/panels-src php differential.php JOBS.json OUT.json
//
// JOBS.json: {"eggs": [{"name", "upstream", "upstream_format", "yaml", "json", "pterodactyl"}],
//             "rules": [{"name", "env", "default", "rules"}],
//             "self_checks": [{"name", "file", "format"}]} (paths of files the test wrote, and
//             of validate's update-check cases, each imported and checked against itself).
// OUT.json, per egg: the egg Pelican stores from the upstream file, from Pelican's own YAML and
// JSON export of it imported again (its round trip), and from eggcat's pelican.yaml and
// pelican.json; the real update check's verdict on each eggcat file; the egg Pterodactyl stores
// from pterodactyl.json or the validation errors that refuse it. Per variable of "rules":
// Laravel's validator on the default value against the rules (pass, fail or throws).
// A PHP error that is not the panel refusing the egg is reported as `crash` with its message.

require __DIR__ . '/boot.php';
require __DIR__ . '/pelican.php';

use App\Enums\EggFormat;
use Illuminate\Database\Capsule\Manager as Capsule;

[$_, $jobsFile, $outFile] = $argv;
$jobs = json_decode(file_get_contents($jobsFile), true, 512, JSON_THROW_ON_ERROR);

function eggcat_pelican(array $job): array
{
    $out = [];
    $upstreamFormat = $job['upstream_format'] === 'yaml' ? EggFormat::YAML : EggFormat::JSON;
    $upstream = file_get_contents($job['upstream']);
    $exports = [];
    // (Closures that fill $exports and $out take them by reference; arrow functions copy.)
    $out['upstream'] = eggcat_outcome(function () use ($upstream, $upstreamFormat, &$exports, &$out) {
        return eggcat_isolated(function () use ($upstream, $upstreamFormat, &$exports, &$out) {
            $egg = eggcat_pelican_import($upstream, $upstreamFormat);
            foreach (['yaml' => EggFormat::YAML, 'json' => EggFormat::JSON] as $key => $format) {
                $exports[$key] = eggcat_outcome(fn () => eggcat_export($egg, $format));
            }
            $out['self_check'] = eggcat_self_check($egg, $upstream);
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
 * The update check on the egg imported from the upstream file as it is, its own `update_url`
 * answered by the file's own bytes (what the panel sees when upstream has not changed): null
 * where the egg has no `update_url` or one whose extension the panel does not take.
 */
function eggcat_self_check($egg, string $upstream): ?array
{
    $extension = strtolower(pathinfo(parse_url($egg->update_url ?? '', PHP_URL_PATH) ?? '', PATHINFO_EXTENSION));
    if (!in_array($extension, ['json', 'yaml', 'yml'], true)) {
        return null;
    }
    return eggcat_outcome(fn () => eggcat_update_check($egg, $upstream));
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
eggcat_migrate();
foreach ($jobs['eggs'] as $job) {
    // The egg at hand, so that a PHP crash that kills the process names it.
    fwrite(STDERR, "egg: {$job['name']}\n");
    $result['eggs'][] = ['name' => $job['name'], 'pelican' => eggcat_pelican($job)];
}
// validate's update-check cases: each file imported, then checked with its own `update_url`
// answered by its own bytes, as the corpus's upstream files are.
foreach ($jobs['self_checks'] ?? [] as $case) {
    fwrite(STDERR, "egg: {$case['name']}\n");
    $content = file_get_contents($case['file']);
    $format = $case['format'] === 'yaml' ? EggFormat::YAML : EggFormat::JSON;
    $check = eggcat_outcome(fn () => eggcat_isolated(fn () => eggcat_self_check(eggcat_pelican_import($content, $format), $content)));
    $result['self_checks'][] = ['name' => $case['name'], 'check' => $check['ok'] ?? $check];
}
eggcat_pterodactyl_schema();
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
$result['seconds'] = microtime(true) - $started;
file_put_contents($outFile, json_encode($result, JSON_THROW_ON_ERROR | JSON_UNESCAPED_SLASHES | JSON_INVALID_UTF8_SUBSTITUTE));
