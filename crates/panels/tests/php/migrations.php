<?php
// Pelican's own migrations make the eggs' and variables' tables (for boot.php and
// laravel13_compare.php): every migration of ../shared/panels-src/pelican/database/migrations
// whose `up()` creates, alters, renames or drops one of those tables or their predecessors
// (`services` -> `nests`, `service_options` -> `eggs`, `service_variables` -> `egg_variables`),
// in filename order, as Laravel's migrator runs them (in a transaction where the grammar says
// schema changes can be: PostgreSQL). What they do to other tables (`servers`, `packs`,
// `api_keys`, ...) is skipped: those tables are not here. Data updates run on empty tables.
//
// The API harness (api.php) asks for the servers' tables too (EGGCAT_SERVER_TABLES): the same
// rule then takes in the migrations of `servers` and `server_variables` (from
// 2016_01_23_201748_add_servers and 2016_01_23_201649_add_server_variables to
// 2025_12_13_000000_convert_base64_images_to_files) and of the tables their foreign keys name
// now or named on the way (`nodes`, `allocations`, `users`; `locations`, which `nodes` named
// until 2024_03_14_055537_remove_locations_table; `service_packs`, then `packs`, which
// `servers` named until 2020_09_13_110007: MariaDB and PostgreSQL refuse a key to a table that
// is not there), so that a server's values of an egg's variables go with the variable as
// Pelican's database makes them go (`server_variables.variable_id` references `egg_variables`
// on delete cascade, 2017_10_06_215741). Two data migrations of `users` query Pelican's User
// model, which api_stand_ins.php stands in for. On SQLite, MariaDB and PostgreSQL alike.

use Illuminate\Database\Capsule\Manager as Capsule;

/** The tables the panels' egg import and export read and write, and their predecessors. */
const EGGCAT_EGG_TABLES = ['services', 'service_options', 'service_variables', 'nests', 'eggs', 'egg_variables'];

/** The servers' tables and those their foreign keys name or named, for the API harness. */
const EGGCAT_SERVER_TABLES = ['servers', 'server_variables', 'nodes', 'allocations', 'users', 'locations', 'service_packs', 'packs'];

/** The migrations that make `$tables`, in the order Laravel runs them (file names). */
function eggcat_egg_migrations(string $dir, array $tables = EGGCAT_EGG_TABLES): array
{
    $tables = implode('|', $tables);
    $names = [];
    foreach (glob("$dir/*.php") as $file) {
        if (preg_match("/Schema::(create|table|rename|drop|dropIfExists)\\(\\s*'($tables)'/", file_get_contents($file))) {
            $names[] = basename($file, '.php');
        }
    }
    sort($names, SORT_STRING);
    return $names;
}

/**
 * Runs the migrations of `$tables` (the egg tables', by default) on the default connection;
 * `$before` runs ahead of the migration of that name (a configuration an admin's database has,
 * made at its point in history). Returns the migrations run.
 */
function eggcat_migrate(array $before = [], array $tables = EGGCAT_EGG_TABLES): array
{
    $dir = getenv('EGGCAT_PANELS_SRC') . '/pelican/database/migrations';
    $db = Capsule::connection();
    // The builder (which sets the connection's schema grammar, asked below).
    $schema = $db->getSchemaBuilder();
    if (!in_array('servers', $tables, true)) {
        // A stand-in for the one other table a data migration reads (2025_12_13 reads the
        // servers' icons before dropping the column).
        $schema->create('servers', function ($t) {
            $t->increments('id');
            $t->string('uuid', 36);
            $t->text('icon')->nullable();
        });
    }
    $db->eggcatOnlyTables = $tables;
    $transactions = $db->getSchemaGrammar()->supportsSchemaTransactions();
    $names = eggcat_egg_migrations($dir, $tables);
    try {
        foreach ($names as $name) {
            if (isset($before[$name])) {
                $before[$name]();
            }
            $migration = require "$dir/$name.php";
            $up = fn () => $migration->up();
            $transactions && $migration->withinTransaction ? $db->transaction($up) : $up();
        }
    } finally {
        $db->eggcatOnlyTables = null;
    }
    return $names;
}

/**
 * The schema builder, doing only what concerns the given tables: a migration that makes the
 * eggs' tables also alters others (`servers`, `packs`, `api_keys`), which this test has not.
 */
final class EggcatTablesOnly
{
    public function __construct(private Illuminate\Database\Schema\Builder $builder, private array $tables) {}

    public function __call(string $method, array $args): mixed
    {
        $table = $args[0] ?? null;
        $filtered = in_array($method, ['create', 'table', 'drop', 'dropIfExists', 'rename'], true);
        if ($filtered && !in_array($table, $this->tables, true)) {
            return null;
        }
        if ($method === 'rename') {
            $this->tables[] = $args[1];
        }
        return $this->builder->$method(...$args);
    }
}

// Laravel's default class aliases, which the 2016 migrations use (`Schema::create`).
class_alias(Illuminate\Support\Facades\Schema::class, 'Schema');
class_alias(Illuminate\Support\Facades\DB::class, 'DB');

if (!function_exists('config')) {
    // 2017_03_10_173607 looks up the core services' author; no such configuration here.
    function config($key = null, $default = null) { return $default; }
}
