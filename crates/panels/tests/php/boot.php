<?php
// Loads the panels' real import, export and validation code (../shared/panels-src, pinned
// commits) on Debian's Laravel packages, with an in-memory SQLite database, so that the
// differential test runs Pelican's and Pterodactyl's own PHP on eggcat's files.
//
// What is real: Pelican's EggImporterService, EggExporterService, CheckEggUpdatesCommand, Egg
// and EggVariable models and EggFormat enum; Pterodactyl's EggParserService,
// EggImporterService, Model, Egg and EggVariable; the migration that adds `sort` to
// `egg_variables`; Laravel's Eloquent, query builder, SQLite grammar and validator (Debian's
// Laravel 8.83, with egulias/email-validator); Symfony's YAML.
//
// What is a stand-in, written here because panels-src does not hold the file (each names the
// panel file it stands for, and does only what the import path needs of it):
// - the tables `eggs`, `egg_variables`, `nests` as the migrations leave them (see schema());
// - Pelican's `HasValidation` trait and `ValidationObserver` (validate on save with the model's
//   rules), `HasIcon` (icons kept in memory), `Validatable`; the model `casts()` method, which
//   Laravel 8 does not read, merged into `$casts`;
// - Pterodactyl's `EggVariableObserver` (drops `field_type` before a save), `Nest` model and
//   exception classes; Ramsey's Uuid; the Http facade and `cache()` of the update check.
//
// Usage: require this file with EGGCAT_PANELS_SRC set to ../shared/panels-src.

error_reporting(E_ALL & ~E_DEPRECATED);
// As Laravel's HandleExceptions does in the panels: a warning or notice is an ErrorException,
// which fails the request (the import) instead of letting it go on.
set_error_handler(function (int $level, string $message, string $file = '', int $line = 0): bool {
    if ($level & (E_DEPRECATED | E_USER_DEPRECATED)) {
        return true;
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

$container = new Container();
Container::setInstance($container);
Facade::setFacadeApplication($container);

$capsule = new Capsule($container);
$capsule->addConnection(['driver' => 'sqlite', 'database' => ':memory:', 'prefix' => '']);
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
 * The tables the importers write, as the panels' migrations leave them on SQLite (Pelican's
 * default database), `egg_variables.sort` excepted: it is added by the real migration
 * (`2024_04_20_214441_add_egg_var_sort.php`), so that Laravel's SQLite grammar places it, and the
 * unique indexes by theirs (`2025_04_01_033956_egg_variable_unique_foreign_key.php`), which decide
 * the order SQLite returns an egg's variables in (the relation has no `orderBy`).
 *
 * Column order and constraints, from the migrations in panels-src and their 2016-2017
 * ancestors: `service_variables` (2016_01_23_202731: id, option_id, name, description NOT NULL,
 * env_variable, default_value NOT NULL, user_viewable, user_editable, required, regex, timestamps;
 * `regex` renamed `rules` and `required` dropped 2017_03_11; `option_id` renamed `egg_id`
 * 2017_10_06; `default_value` text 2018_09_03; `rules` json 2024_07_25). `eggs`: `script_container` NOT NULL default
 * 'alpine:3.4' and `script_entry` NOT NULL default 'ash' (2017_04_20, 2024_06_11), `name`
 * NOT NULL, everything else nullable.
 */
function eggcat_schema(string $panel): void
{
    $db = Capsule::connection();
    $db->statement('PRAGMA foreign_keys = ON');
    foreach (['egg_variables', 'eggs', 'nests'] as $t) {
        $db->statement("DROP TABLE IF EXISTS $t");
    }
    $db->statement('CREATE TABLE nests (id integer primary key autoincrement, uuid varchar, author varchar, name varchar not null, description text, created_at datetime, updated_at datetime)');
    $db->table('nests')->insert(['id' => 1, 'name' => 'Imported']);
    $eggs = [
        'id integer primary key autoincrement',
        'uuid varchar(36) unique',
        $panel === 'pterodactyl' ? 'nest_id integer not null references nests(id)' : null,
        'author varchar',
        'name varchar not null',
        'description text',
        'features text',
        'docker_images text',
        'file_denylist text',
        'update_url text',
        'config_files text',
        'config_startup text',
        'config_logs text',
        'config_stop varchar',
        'config_from integer references eggs(id)',
        $panel === 'pterodactyl' ? 'startup text' : 'startup_commands text',
        "script_container varchar not null default 'alpine:3.4'",
        "script_entry varchar not null default 'ash'",
        'script_is_privileged tinyint(1) not null default 1',
        'script_install text',
        'copy_script_from integer references eggs(id)',
        'created_at datetime',
        'updated_at datetime',
        'force_outgoing_ip tinyint(1) not null default 0',
        $panel === 'pelican' ? 'tags text' : null,
        $panel === 'pelican' ? 'image text' : null,
    ];
    $db->statement('CREATE TABLE eggs (' . implode(', ', array_filter($eggs)) . ')');
    $db->statement('CREATE TABLE egg_variables (id integer primary key autoincrement, egg_id integer not null references eggs(id) on delete cascade, name varchar not null, description text not null, env_variable varchar not null, default_value text not null, user_viewable tinyint not null, user_editable tinyint not null, rules text' . ($panel === 'pelican' ? '' : ' not null') . ', created_at datetime, updated_at datetime)');
    if ($panel === 'pelican') {
        eggcat_migration('2024_04_20_214441_add_egg_var_sort')->up();
        eggcat_migration('2025_04_01_033956_egg_variable_unique_foreign_key')->up();
    }
}

/** One of Pelican's real migrations, as a migration object. */
function eggcat_migration(string $name): object
{
    static $loaded = [];
    return $loaded[$name] ??= require getenv('EGGCAT_PANELS_SRC') . "/pelican/database/migrations/$name.php";
}

/** The columns of `egg_variables`, in table order, as SQLite has them now. */
function eggcat_variable_columns(): array
{
    return array_map(fn ($c) => $c->name, Capsule::connection()->select('PRAGMA table_info(egg_variables)'));
}

/** The SQL MySQL/MariaDB would run for the `sort` migration (Laravel's MySQL grammar). */
function eggcat_sort_migration_mysql_sql(): string
{
    $blueprint = new \Illuminate\Database\Schema\Blueprint('egg_variables');
    $blueprint->unsignedTinyInteger('sort')->nullable()->after('egg_id');
    $mysql = new \Illuminate\Database\Connection(new PDO('sqlite::memory:'), '', '', ['driver' => 'mysql']);
    $mysql->setSchemaGrammar(new \Illuminate\Database\Schema\Grammars\MySqlGrammar());
    return implode(";\n", $blueprint->toSql($mysql, $mysql->getSchemaGrammar()));
}
