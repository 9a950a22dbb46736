<?php
// The eggs' tables as Laravel 13 itself makes them, to compare with what schema_bridge.php makes
// on Laravel 8: Pelican's same migrations (migrations.php), run by Laravel 13's own schema
// builder from a checkout of laravel/framework (Pelican's composer.lock pins v13.26.1), on the
// database EGGCAT_DB names. Prints {"tables": eggcat_tables()} (tables.php), as databases.php
// reports the tables the bridge made.
//
// Usage: EGGCAT_LARAVEL_SRC=FRAMEWORK/src EGGCAT_PANELS_SRC=../shared/panels-src \
//        EGGCAT_DB='{"driver": ...}' php laravel13_compare.php
// The differential test runs it on a fresh database of each server when EGGCAT_LARAVEL_SRC is
// set, and fails if the tables differ. The checkout is not part of CI (no network there): the
// test names the run without it as not compared. Laravel 13 asks for PHP 8.3; the schema builder
// runs on Debian's 8.2 with the few newer functions it calls written below.

error_reporting(E_ALL & ~E_DEPRECATED);
set_error_handler(function (int $level, string $message, string $file = '', int $line = 0): bool {
    throw new ErrorException($message, 0, $level, $file, $line);
}, E_ALL & ~E_DEPRECATED);

$laravel = getenv('EGGCAT_LARAVEL_SRC') ?: die("EGGCAT_LARAVEL_SRC is not set\n");
// laravel/framework's composer.json `autoload`: Illuminate\Support spans four folders.
spl_autoload_register(function (string $class) use ($laravel): void {
    $rel = str_replace('\\', '/', $class) . '.php';
    $dirs = str_starts_with($class, 'Illuminate\\Support\\')
        ? array_map(fn ($d) => "$laravel/Illuminate/$d/" . substr($rel, strlen('Illuminate/Support/')), ['Macroable', 'Collections', 'Conditionable', 'Reflection'])
        : [];
    foreach ([...$dirs, "$laravel/$rel"] as $file) {
        if (str_starts_with($class, 'Illuminate\\') && is_file($file)) {
            require $file;
            return;
        }
    }
});
foreach (['Doctrine/Inflector', 'Psr/Container', 'Psr/SimpleCache', 'voku/helper', 'Carbon'] as $package) {
    require_once "/usr/share/php/$package/autoload.php";
}
foreach (['Collections/functions.php', 'Collections/helpers.php', 'Support/functions.php', 'Support/helpers.php', 'Reflection/helpers.php'] as $file) {
    require_once "$laravel/Illuminate/$file";
}
// PHP 8.3-8.5 functions Laravel 13 calls (what symfony/polyfill-php8x give it).
if (!function_exists('array_first')) { function array_first(array $a) { return $a === [] ? null : $a[array_key_first($a)]; } }
if (!function_exists('array_last')) { function array_last(array $a) { return $a === [] ? null : $a[array_key_last($a)]; } }
if (!function_exists('array_find')) { function array_find(array $a, callable $f) { foreach ($a as $k => $v) { if ($f($v, $k)) { return $v; } } return null; } }
if (!function_exists('array_any')) { function array_any(array $a, callable $f): bool { return array_find($a, $f) !== null; } }
if (!function_exists('json_validate')) { function json_validate(string $j): bool { json_decode($j); return json_last_error() === JSON_ERROR_NONE; } }

use Illuminate\Container\Container;
use Illuminate\Database\Capsule\Manager as Capsule;
use Illuminate\Database\Connection;
use Illuminate\Support\Facades\Facade;

/** Laravel 13's own connections, with the filter the migration runner sets (see `db.schema`). */
trait EggcatFilteredSchema
{
    public ?array $eggcatOnlyTables = null;
}
final class EggcatL13MariaDb extends Illuminate\Database\MariaDbConnection { use EggcatFilteredSchema; }
final class EggcatL13Postgres extends Illuminate\Database\PostgresConnection { use EggcatFilteredSchema; }
final class EggcatL13SQLite extends Illuminate\Database\SQLiteConnection { use EggcatFilteredSchema; }
Connection::resolverFor('mariadb', fn ($pdo, $db, $prefix, $config) => new EggcatL13MariaDb($pdo, $db, $prefix, $config));
Connection::resolverFor('pgsql', fn ($pdo, $db, $prefix, $config) => new EggcatL13Postgres($pdo, $db, $prefix, $config));
Connection::resolverFor('sqlite', fn ($pdo, $db, $prefix, $config) => new EggcatL13SQLite($pdo, $db, $prefix, $config));

$container = new Container();
Container::setInstance($container);
Facade::setFacadeApplication($container);
$capsule = new Capsule($container);
$db = json_decode(getenv('EGGCAT_DB') ?: '{"driver":"sqlite"}', true);
// Pelican's config/database.php, with its own driver name for MariaDB.
$capsule->addConnection(match ($db['driver']) {
    'sqlite' => ['driver' => 'sqlite', 'database' => $db['database'] ?? ':memory:', 'prefix' => '', 'foreign_key_constraints' => true],
    'mysql' => ['driver' => 'mariadb', 'unix_socket' => $db['socket'], 'database' => $db['database'], 'username' => 'root', 'password' => '', 'charset' => 'utf8mb4', 'collation' => 'utf8mb4_unicode_ci', 'prefix' => '', 'prefix_indexes' => true, 'strict' => false, 'engine' => null],
    'pgsql' => ['driver' => 'pgsql', 'host' => $db['socket'], 'port' => 5432, 'database' => $db['database'], 'username' => 'postgres', 'password' => '', 'charset' => 'utf8', 'prefix' => '', 'prefix_indexes' => true, 'search_path' => 'public', 'sslmode' => 'prefer'],
});
$capsule->setAsGlobal();
$container->instance('db', $capsule->getDatabaseManager());
// The `Schema` facade (Laravel 13 resolves `db.schema`), filtered while the migrations run.
$container->bind('db.schema', function () {
    $db = Capsule::connection();
    return $db->eggcatOnlyTables === null ? $db->getSchemaBuilder() : new EggcatTablesOnly($db->getSchemaBuilder(), $db->eggcatOnlyTables);
});

require __DIR__ . '/migrations.php';
require __DIR__ . '/tables.php';
eggcat_migrate();
echo json_encode(['tables' => eggcat_tables()], JSON_PRETTY_PRINT | JSON_UNESCAPED_SLASHES), "\n";
