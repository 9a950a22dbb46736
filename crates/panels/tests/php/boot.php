<?php
// Loads the panels' real import, export and validation code (../shared/panels-src, pinned
// commits) on Debian's Laravel packages, on the database the test names in EGGCAT_DB (an
// in-memory SQLite database by default), so that the differential test runs Pelican's and
// Pterodactyl's own PHP on eggcat's files.
//
// What is real: Pelican's EggImporterService, EggExporterService, CheckEggUpdatesCommand, Egg
// and EggVariable models and EggFormat enum; Pterodactyl's EggParserService,
// EggImporterService, Model, Egg and EggVariable; Pelican's migrations, which make its tables
// (migrations.php, through schema_bridge.php: Laravel 13's schema semantics on Laravel 8);
// Laravel's Eloquent, query builder, grammars and validator (Debian's Laravel 8.83, with
// egulias/email-validator); Symfony's YAML.
//
// What is a stand-in, written here because panels-src does not hold the file (each names the
// panel file it stands for, and does only what the import path needs of it):
// - Pterodactyl's tables (see eggcat_pterodactyl_schema());
// - Pelican's `HasValidation` trait and `ValidationObserver` (validate on save with the model's
//   rules), `HasIcon` (icons kept in memory), `Validatable`; the model `casts()` method, which
//   Laravel 8 does not read, merged into `$casts`;
// - Pterodactyl's `EggVariableObserver` (drops `field_type` before a save), `Nest` model and
//   exception classes; Ramsey's Uuid; the Http facade and `cache()` of the update check.
// And one witness: `check_hashes.php` notes the hashes the update check computes (its `md5`
// resolves to a function that calls PHP's and returns the same).
//
// Usage: require this file with EGGCAT_PANELS_SRC set to ../shared/panels-src.

error_reporting(E_ALL & ~E_DEPRECATED);
// As Laravel's HandleExceptions does in the panels: a warning or notice is an ErrorException,
// which fails the request (the import) instead of letting it go on.
set_error_handler(function (int $level, string $message, string $file = '', int $line = 0): bool {
    if ($level & (E_DEPRECATED | E_USER_DEPRECATED)) {
        return true;
    }
    // Laravel leaves alone what `@` silences (HandleExceptions::handleError).
    if (!(error_reporting() & $level)) {
        return false;
    }
    throw new ErrorException($message, 0, $level, $file, $line);
});

foreach ([
    'Symfony/Component/Yaml', 'Symfony/Component/HttpFoundation', 'Symfony/Component/Console',
    'Illuminate/Support', 'Illuminate/Collections', 'Illuminate/Container',
    'Illuminate/Database', 'Illuminate/Events', 'Illuminate/Validation', 'Illuminate/Translation',
    'Illuminate/Console', 'Illuminate/Http', 'Egulias/EmailValidator',
] as $package) {
    require_once "/usr/share/php/$package/autoload.php";
}

use Illuminate\Container\Container;
use Illuminate\Database\Capsule\Manager as Capsule;
use Illuminate\Events\Dispatcher;
use Illuminate\Support\Facades\Facade;
use Illuminate\Translation\ArrayLoader;
use Illuminate\Translation\Translator;
use Illuminate\Validation\DatabasePresenceVerifier;
use Illuminate\Validation\Factory as ValidationFactory;

$src = getenv('EGGCAT_PANELS_SRC') ?: die("EGGCAT_PANELS_SRC is not set\n");

/**
 * The connection Pelican makes (its config/database.php at the pinned commit) to the database
 * the test started: `{"driver": "sqlite", "database": PATH}` (default: in memory),
 * `{"driver": "mysql", "socket": PATH, "database": NAME}` (MariaDB: Pelican's driver `mariadb`
 * is Laravel 11's name for the same connector; Laravel 8 has `mysql`), or
 * `{"driver": "pgsql", "socket": DIR, "database": NAME}`.
 */
function eggcat_connection(array $db): array
{
    return match ($db['driver']) {
        'sqlite' => [
            'driver' => 'sqlite', 'database' => $db['database'] ?? ':memory:', 'prefix' => '',
            'foreign_key_constraints' => true,
        ],
        'mysql' => [
            'driver' => 'mysql', 'unix_socket' => $db['socket'], 'database' => $db['database'],
            'username' => 'root', 'password' => '', 'charset' => 'utf8mb4',
            'collation' => 'utf8mb4_unicode_ci', 'prefix' => '', 'prefix_indexes' => true,
            'strict' => false, 'engine' => null,
        ],
        'pgsql' => [
            'driver' => 'pgsql', 'host' => $db['socket'], 'port' => 5432, 'database' => $db['database'],
            'username' => 'postgres', 'password' => '', 'charset' => 'utf8', 'prefix' => '',
            'prefix_indexes' => true, 'schema' => 'public', 'search_path' => 'public', 'sslmode' => 'prefer',
        ],
    };
}

$container = new Container();
Container::setInstance($container);
Facade::setFacadeApplication($container);

require_once __DIR__ . '/schema_bridge.php';
require_once __DIR__ . '/migrations.php';
require_once __DIR__ . '/tables.php';

$capsule = new Capsule($container);
$capsule->addConnection(eggcat_connection(json_decode(getenv('EGGCAT_DB') ?: '{"driver":"sqlite"}', true)));
$capsule->setEventDispatcher(new Dispatcher($container));
$capsule->setAsGlobal();
$capsule->bootEloquent();
$container->instance('db', $capsule->getDatabaseManager());

$validation = new ValidationFactory(new Translator(new ArrayLoader(), 'en'), $container);
$validation->setPresenceVerifier(new DatabasePresenceVerifier($capsule->getDatabaseManager()));
$container->instance(ValidationFactory::class, $validation);
$container->instance(\Illuminate\Contracts\Validation\Factory::class, $validation);
$container->instance('validator', $validation);

// Icons: the panels write them to the `public` disk; here, to memory.
final class MemoryDisk
{
    public array $files = [];
    public function exists(string $p): bool { return isset($this->files[$p]); }
    public function get(string $p): ?string { return $this->files[$p] ?? null; }
    public function put(string $p, string $d): bool { $this->files[$p] = $d; return true; }
    public function delete(string $p): bool { unset($this->files[$p]); return true; }
    public function url(string $p): string { return "/storage/$p"; }
}
final class MemoryFilesystem
{
    public MemoryDisk $disk;
    public function __construct() { $this->disk = new MemoryDisk(); }
    public function disk(?string $name = null): MemoryDisk { return $this->disk; }
}
$container->instance('filesystem', new MemoryFilesystem());

if (!function_exists('report')) {
    function report($e): void {}
}
if (!function_exists('trans')) {
    function trans($key, $replace = []) { return $key; }
}

require_once __DIR__ . '/stand_ins.php';
// A witness of the hashes the update check computes (it calls PHP's md5 and returns its result).
require_once __DIR__ . '/check_hashes.php';

// The real panel code.
foreach ([
    'pelican/app/Enums/EggFormat.php',
    'pelican/app/Models/Egg.php',
    'pelican/app/Models/EggVariable.php',
    'pelican/app/Services/Eggs/Sharing/EggImporterService.php',
    'pelican/app/Services/Eggs/Sharing/EggExporterService.php',
    'pelican/app/Console/Commands/Egg/CheckEggUpdatesCommand.php',
    'pterodactyl/app/Models/Model.php',
    'pterodactyl/app/Models/Egg.php',
    'pterodactyl/app/Models/EggVariable.php',
    'pterodactyl/app/Services/Eggs/EggParserService.php',
    'pterodactyl/app/Services/Eggs/Sharing/EggImporterService.php',
] as $file) {
    require_once "$src/$file";
}
require_once __DIR__ . '/stand_ins_ptero.php';

// pterodactyl/panel app/Observers/EggVariableObserver.php: `field_type` is no column.
\Pterodactyl\Models\EggVariable::creating(function ($v) { unset($v->field_type); });
\Pterodactyl\Models\EggVariable::updating(function ($v) { unset($v->field_type); });

/**
 * Pterodactyl's tables `eggs`, `egg_variables`, `nests` on SQLite, as its migrations leave them
 * (written out here: panels-src holds only Pterodactyl's migrations that touch them). Column
 * order and constraints, from those migrations and their 2016-2017 ancestors: `service_variables`
 * (2016_01_23_202731: id, option_id, name, description NOT NULL, env_variable, default_value NOT
 * NULL, user_viewable, user_editable, required, regex, timestamps; `regex` renamed `rules` and
 * `required` dropped 2017_03_11; `option_id` renamed `egg_id` 2017_10_06; `default_value` text
 * 2018_09_03). `eggs`: `script_container` NOT NULL default 'alpine:3.4' and `script_entry` NOT
 * NULL default 'ash' (2017_04_20), `name` NOT NULL, everything else nullable.
 */
function eggcat_pterodactyl_schema(): void
{
    $db = Capsule::connection();
    $db->statement('PRAGMA foreign_keys = ON');
    foreach (['egg_variables', 'eggs', 'nests'] as $t) {
        $db->statement("DROP TABLE IF EXISTS $t");
    }
    $db->statement('CREATE TABLE nests (id integer primary key autoincrement, uuid varchar, author varchar, name varchar not null, description text, created_at datetime, updated_at datetime)');
    $db->table('nests')->insert(['id' => 1, 'name' => 'Imported']);
    $db->statement('CREATE TABLE eggs (' . implode(', ', [
        'id integer primary key autoincrement', 'uuid varchar(36) unique',
        'nest_id integer not null references nests(id)', 'author varchar', 'name varchar not null',
        'description text', 'features text', 'docker_images text', 'file_denylist text',
        'update_url text', 'config_files text', 'config_startup text', 'config_logs text',
        'config_stop varchar', 'config_from integer references eggs(id)', 'startup text',
        "script_container varchar not null default 'alpine:3.4'",
        "script_entry varchar not null default 'ash'",
        'script_is_privileged tinyint(1) not null default 1', 'script_install text',
        'copy_script_from integer references eggs(id)', 'created_at datetime', 'updated_at datetime',
        'force_outgoing_ip tinyint(1) not null default 0',
    ]) . ')');
    $db->statement('CREATE TABLE egg_variables (id integer primary key autoincrement, egg_id integer not null references eggs(id) on delete cascade, name varchar not null, description text not null, env_variable varchar not null, default_value text not null, user_viewable tinyint not null, user_editable tinyint not null, rules text not null, created_at datetime, updated_at datetime)');
}
