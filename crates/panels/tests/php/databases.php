<?php
// Pelican's update check on one real database, every egg kept, for
// crates/panels/tests/differential.rs (issue 26): what an admin's panel does with eggcat's file
// for that database.
//
// Usage: EGGCAT_PANELS_SRC=../shared/panels-src EGGCAT_DB='{...}' php databases.php JOBS OUT
//
// JOBS: {"dump_index", "analyze", "store", "change", "add", "update": bool,
//        "eggs": [{"name", "file", "url"}]},
// the eggs in corpus order, each with eggcat's file for this database and the URL it is served
// at; `store`: report the egg stored from each file; `change`: run the `changed` step;
// `add`: in the `changed` step, upstream also adds a variable to 5 of the eggs, first in the
// file; `update`: run the `update` and `reimport` steps; `versions` (optional): eggcat's file
// of an older version of some eggs, [{"name", "file", "url"}], imported last (see there).
// Steps, as an admin would take them, the eggs staying in the tables throughout:
// 1. Pelican's migrations make the tables (with `dump_index`: plus the `egg_id` index of the
//    mysql-schema.sql panels were installed from until February 2025, at that dump's point);
// 2. `import`: every egg imported from its file (`EggImporterService::fromContent`), in order,
//    then the update check on every egg, its `update_url` answered by the same file;
// 3. `changed` (when asked): upstream changes a variable of 40 eggs, the admin updates them,
//    the check;
//    `analyze` (when asked): the database's statistics gathered, then the check again;
// 4. `update` (when asked): the admin's "Update" on every egg (`fromUrl` on its `update_url`),
//    then the check;
// 5. `reimport` (when asked): every file imported again, then the check.
// OUT: the columns and indexes of `egg_variables`, the egg stored from each file, and per step
// the plan of the query the exporter loads an egg's variables with, each egg's verdict, seconds.

require __DIR__ . '/boot.php';
require __DIR__ . '/pelican.php';

use App\Enums\EggFormat;
use App\Models\Egg;
use Illuminate\Database\Capsule\Manager as Capsule;

[$_, $jobsFile, $outFile] = $argv;
$jobs = json_decode(file_get_contents($jobsFile), true, 512, JSON_THROW_ON_ERROR);
$started = microtime(true);
$db = Capsule::connection();

// The explicit index of Pelican's database/schema/mysql-schema.sql (`KEY
// service_variables_egg_id_foreign (egg_id)` in `egg_variables`, unchanged from the dump's
// first version to its removal in 030804573, 2025-02-27). A panel installed from the dump ran
// the migrations after 2024_06_11 on top of it; the dump's other differences (`uuid char(36)`,
// `tags` NOT NULL) do not touch the variables' order.
$before = $jobs['dump_index'] ? [
    '2024_07_25_072050_convert_rules_to_array' => fn () => $db->statement('create index service_variables_egg_id_foreign on egg_variables (egg_id)'),
] : [];
$out = ['migrations' => count(eggcat_migrate($before))];
$out['columns'] = eggcat_columns('egg_variables');
$out['indexes'] = eggcat_indexes('egg_variables');
$out['tables'] = eggcat_tables();

$files = [];
foreach ($jobs['eggs'] as $job) {
    $files[$job['url']] = file_get_contents($job['file']);
}
// The files as served now (by reference: the `changed` step serves others for a while).
eggcat_serve(function ($url) use (&$files) {
    return $files[$url] ?? throw new RuntimeException("nothing served at $url");
});
$importer = new App\Services\Eggs\Sharing\EggImporterService($db);

/**
 * Imports every file (`fromContent`, or with `$ids` `fromUrl` onto each egg: the admin's
 * "Update"); the egg ids by name, and with `$store` the egg stored (eggcat_stored, which is slow).
 */
function eggcat_import_all(array $jobs, array $files, $importer, ?array $ids, bool $store): array
{
    $stored = [];
    foreach ($jobs['eggs'] as $job) {
        fwrite(STDERR, "egg: {$job['name']}\n");
        $name = $job['name'];
        if ($ids !== null && !isset($ids[$name])) {
            continue;
        }
        $result = eggcat_outcome(function () use ($job, $files, $importer, $ids, $name, $store) {
            // UpdateEggAction: `fromUrl($egg->update_url, $egg)`.
            $egg = $ids === null
                ? $importer->fromContent($files[$job['url']], EggFormat::JSON)
                : $importer->fromUrl(($egg = Egg::findOrFail($ids[$name]))->update_url, $egg);
            return ['id' => $egg->id, 'stored' => $store ? eggcat_stored($egg) : null];
        });
        $stored[$name] = $result;
    }
    return $stored;
}

/** The update check on every imported egg, in order; and the plan the exporter's query gets. */
function eggcat_check_all(string $step, array $jobs, array $files, array $ids, float $since): array
{
    $db = Capsule::connection();
    // The query the exporter loads an egg's variables with (`Egg::with('variables')`), caught
    // as the panel sends it, for the egg with the most variables.
    $most = Capsule::table('egg_variables')->selectRaw('egg_id, count(*) as n')->groupBy('egg_id')->orderByDesc('n')->orderBy('egg_id')->first();
    $db->flushQueryLog();
    $db->enableQueryLog();
    eggcat_export(Egg::findOrFail($most->egg_id), EggFormat::JSON);
    $db->disableQueryLog();
    $query = array_values(array_filter($db->getQueryLog(), fn ($q) => str_contains($q['query'], 'egg_variables')))[0];
    $verdicts = [];
    foreach ($jobs['eggs'] as $job) {
        if (!isset($ids[$job['name']])) {
            continue;
        }
        $egg = Egg::findOrFail($ids[$job['name']]);
        eggcat_check_hashes();
        $verdict = eggcat_outcome(fn () => eggcat_check($egg, $files[$job['url']]));
        // The hashes the check compared (check_hashes.php): the panel's export's, the file's.
        $verdict['md5'] = eggcat_check_hashes();
        if (!str_ends_with($verdict['ok'] ?? '', ': Up-to-date')) {
            // This egg's own plan (the same query, its id).
            $sql = preg_replace('/ in \(\d+\)/', " in ($egg->id)", $query['query']);
            $verdict['plan'] = eggcat_plan($sql, $query['bindings']);
            if ($db->getDriverName() === 'pgsql') {
                $verdict['physical'] = eggcat_physical_order($egg->id);
            }
        }
        $verdicts[$job['name']] = $verdict;
    }
    return [
        'step' => $step,
        'query' => $query['query'],
        'bindings' => $query['bindings'],
        'plan' => eggcat_plan($query['query'], $query['bindings']),
        'variables' => $most->n,
        'verdicts' => $verdicts,
        'seconds' => microtime(true) - $since,
    ];
}

/**
 * PostgreSQL: where an egg's variables lie in the table (`ctid`: page, item), in the order they
 * were inserted (`id`), and whether a later row lies before an earlier one (it went to a page
 * with free space left, before the page the earlier rows filled): a sequential or bitmap heap
 * scan returns them in that physical order, not as inserted.
 */
function eggcat_physical_order(int $egg): array
{
    $rows = Capsule::connection()->select('select ctid::text as ctid from egg_variables where egg_id = ? order by id', [$egg]);
    $at = array_map(fn ($r) => array_map('intval', explode(',', trim($r->ctid, '()'))), $rows);
    $sorted = $at;
    sort($sorted);
    return ['ctids' => implode(' ', array_map(fn ($r) => $r->ctid, $rows)), 'as_inserted' => $sorted === $at];
}

$since = microtime(true);
$imported = eggcat_import_all($jobs, $files, $importer, null, $jobs['store']);
$out['stored'] = array_map(fn ($r) => isset($r['ok']) ? ['ok' => $r['ok']['stored']] : $r, $jobs['store'] ? $imported : array_filter($imported, fn ($r) => !isset($r['ok'])));
$ids = array_map(fn ($r) => $r['ok']['id'], array_filter($imported, fn ($r) => isset($r['ok'])));
$out['steps'][] = eggcat_check_all('import', $jobs, $files, $ids, $since);
// Upstream changes an egg: the first variable's description, in the first 40 eggs with more
// than one variable. The admin updates; the database writes that row anew (PostgreSQL: a new
// row version, wherever there is room), and the check runs on the changed file. Then upstream
// takes the change back and the admin updates again (unchecked: the next steps check).
$since = microtime(true);
$original = $files;
$changed = [];
$added = [];
foreach ($jobs['change'] ? $jobs['eggs'] : [] as $job) {
    $egg = json_decode($files[$job['url']], true);
    if (count($changed) < 40 && isset($ids[$job['name']]) && count($egg['variables'] ?? []) > 1) {
        $egg['variables'][0]['description'] = ($egg['variables'][0]['description'] ?? '') . ' (changed upstream)';
        if ($jobs['add'] && count($added) < 5) {
            // A new variable, first in the file (the order of every database's index: its name
            // and env variable sort first), as the export of the egg it makes would write it.
            $new = $egg['variables'][0];
            foreach (['name' => '0 Added upstream', 'env_variable' => 'A0_ADDED_UPSTREAM', 'default_value' => '', 'rules' => ['nullable', 'string']] as $key => $value) {
                $new[$key] = $value;
            }
            array_unshift($egg['variables'], $new);
            $added[] = $job['name'];
        }
        $files[$job['url']] = json_encode($egg, JSON_PRETTY_PRINT | JSON_UNESCAPED_SLASHES);
        $changed[$job['name']] = $ids[$job['name']];
    }
}
$refused = fn (array $results) => array_keys(array_filter($results, fn ($r) => !isset($r['ok'])));
if ($changed) {
    $updated = eggcat_import_all($jobs, $files, $importer, $changed, false);
    $step = eggcat_check_all('changed', $jobs, $files, $changed, $since);
    $files = $original;
    $back = eggcat_import_all($jobs, $files, $importer, $changed, false);
    $out['steps'][] = $step + ['refused' => array_merge($refused($updated), $refused($back)), 'added' => $added];
}
if ($jobs['analyze']) {
    $since = microtime(true);
    match ($db->getDriverName()) {
        'sqlite' => $db->statement('analyze'),
        'mysql' => $db->select('analyze table eggs, egg_variables'),
        'pgsql' => $db->statement('analyze'),
    };
    $out['steps'][] = eggcat_check_all('analyze', $jobs, $files, $ids, $since);
}
if ($jobs['update']) {
    $since = microtime(true);
    $updated = eggcat_import_all($jobs, $files, $importer, $ids, false);
    $out['steps'][] = eggcat_check_all('update', $jobs, $files, $ids, $since) + ['refused' => $refused($updated)];
    $since = microtime(true);
    $again = eggcat_import_all($jobs, $files, $importer, null, false);
    $out['steps'][] = eggcat_check_all('reimport', $jobs, $files, $ids, $since) + ['refused' => $refused($again)];
}
// Older versions (issue 37): each egg of `versions` imported at an older version of its file
// (`fromContent`, which updates the egg with the file's uuid in place, as a panel that imported
// eggcat's file then has it), then the update check with the update URL answering that file:
// its verdict and the two hashes it computed, which the test holds to the hash eggcat publishes
// for that version.
if ($jobs['versions'] ?? []) {
    $since = microtime(true);
    $older = [];
    foreach ($jobs['versions'] as $job) {
        fwrite(STDERR, "egg: {$job['name']} (older)\n");
        $files[$job['url']] = file_get_contents($job['file']);
        $older[$job['name']] = eggcat_outcome(function () use ($job, $files, $importer) {
            $egg = $importer->fromContent($files[$job['url']], EggFormat::JSON);
            eggcat_check_hashes();
            $verdict = eggcat_outcome(fn () => eggcat_check($egg, $files[$job['url']]));
            return $verdict + ['md5' => eggcat_check_hashes()];
        });
    }
    $out['versions'] = ['verdicts' => $older, 'seconds' => microtime(true) - $since];
}
$out['seconds'] = microtime(true) - $started;
$usage = getrusage();
$out['cpu_seconds'] = $usage['ru_utime.tv_sec'] + $usage['ru_stime.tv_sec'] + ($usage['ru_utime.tv_usec'] + $usage['ru_stime.tv_usec']) / 1e6;
file_put_contents($outFile, json_encode($out, JSON_THROW_ON_ERROR | JSON_UNESCAPED_SLASHES | JSON_INVALID_UTF8_SUBSTITUTE));
