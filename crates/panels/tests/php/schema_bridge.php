<?php
// Laravel 13's schema builder semantics on Debian's Laravel 8.83, so that Pelican's migrations
// make on each database the tables Pelican itself makes (Pelican runs laravel/framework 13.26.1
// at the pinned commit; its composer.lock says so).
//
// Laravel 8 needs doctrine/dbal for `change()`, `renameColumn()` and SQLite's `dropColumn()`,
// and with it keeps a changed column's unstated attributes (nullable, default) where Laravel 11+
// writes the column anew from what the migration says: `$table->text('regex')->change()` leaves
// `regex` nullable on Laravel 8 and makes it NOT NULL on Laravel 13. So this file does not use
// doctrine: it compiles each command as Laravel 13 does, written here from Laravel 13's own
// grammars (src/Illuminate/Database/Schema/{Blueprint,BlueprintState}.php and
// Grammars/{MySql,Postgres,SQLite}Grammar.php):
// - columns are commands in the order the migration declares them, among the other commands
//   (Laravel 8 puts every added and every changed column first, in one statement each);
// - MySQL/MariaDB: one `alter table .. add` per column; `change()` is `modify` with the column
//   as declared; `renameColumn` is `rename column` (MariaDB >= 10.5.2);
// - PostgreSQL: `change()` is `alter column .. type`, `set|drop not null`, `set|drop default`,
//   `drop identity if exists`; `rename column`;
// - SQLite: `change()`, `foreign()` and `dropForeign()` on an existing table rebuild it (a new
//   table with the columns, keys and indexes the table has once the blueprint's commands are
//   applied, the rows copied, the old table dropped, the new one renamed), as Laravel 13's
//   `compileAlter` does from its `BlueprintState`, read with Laravel 13's own queries;
//   `dropColumn` and `renameColumn` are SQLite's native `alter table`. Modifiers in Laravel 13's
//   order (`integer primary key autoincrement not null`).
// crates/panels/tests/php/laravel13_compare.php runs the same migrations through Laravel 13
// itself, when a checkout of it is at hand, and compares the tables (see its header).

use Illuminate\Database\Connection;
use Illuminate\Database\Query\Expression;
use Illuminate\Database\Schema\Blueprint;
use Illuminate\Database\Schema\ForeignKeyDefinition;
use Illuminate\Database\Schema\Grammars\Grammar;
use Illuminate\Database\Schema\Grammars\MySqlGrammar;
use Illuminate\Database\Schema\Grammars\PostgresGrammar;
use Illuminate\Database\Schema\Grammars\SQLiteGrammar;
use Illuminate\Support\Fluent;

/** A blueprint that keeps columns among the commands and compiles them as Laravel 13 does. */
final class EggcatBlueprint extends Blueprint
{
    /** The SQLite table as the blueprint's commands leave it, when it rebuilds the table. */
    public ?EggcatSqliteState $state = null;

    protected function addColumnDefinition($definition)
    {
        parent::addColumnDefinition($definition);
        // Laravel 13: a column is a command, where the migration declares it.
        $this->commands[] = new Fluent(['name' => 'eggcatColumn', 'column' => $definition]);
        return $definition;
    }

    public function toSql(Connection $connection, Grammar $grammar)
    {
        $this->addFluentIndexes();
        $this->addFluentCommands($grammar);
        $creating = $this->creating();
        $commands = [];
        foreach ($this->commands as $command) {
            if ($command->name === 'eggcatColumn') {
                if ($creating) {
                    continue;
                }
                $command = $this->createCommand($command->column->change ? 'change' : 'add', ['column' => $command->column]);
            }
            $commands[] = $command;
        }
        $this->commands = $grammar instanceof EggcatSQLiteGrammar && !$creating
            ? $this->withAlterCommands($commands, $connection)
            : $commands;
        $statements = [];
        foreach ($this->commands as $command) {
            $this->state?->update($command);
            $method = 'compile' . ucfirst($command->name);
            if (method_exists($grammar, $method) && !is_null($sql = $grammar->$method($this, $command, $connection))) {
                $statements = array_merge($statements, (array) $sql);
            }
        }
        return $statements;
    }

    /**
     * Laravel 13's `addAlterCommands`: an `alter` (the table rebuilt) after each run of commands
     * SQLite cannot do in place, with the table's state read before any of them.
     */
    private function withAlterCommands(array $commands, Connection $connection): array
    {
        $alter = ['change', 'primary', 'dropPrimary', 'foreign', 'dropForeign'];
        [$out, $last, $any] = [[], false, false];
        foreach ($commands as $command) {
            if (in_array($command->name, $alter, true)) {
                [$any, $last] = [true, true];
            } elseif ($last) {
                $out[] = $this->createCommand('alter');
                $last = false;
            }
            $out[] = $command;
        }
        if ($last) {
            $out[] = $this->createCommand('alter');
        }
        if ($any) {
            $this->state = new EggcatSqliteState($connection, $this->getTable());
        }
        return $out;
    }
}

/** Laravel 13's `BlueprintState` for SQLite: columns, primary key, indexes and foreign keys. */
final class EggcatSqliteState
{
    public array $columns = [];
    public ?Fluent $primary = null;
    public array $indexes = [];
    public array $foreign = [];

    public function __construct(Connection $db, string $table)
    {
        $sql = $db->selectOne("select sql from sqlite_master where type = 'table' and name = ?", [$table])->sql ?? '';
        $rows = $db->select('select name, type, not "notnull" as "nullable", dflt_value as "default", pk as "primary", hidden as "extra" from pragma_table_xinfo(?, ?) order by cid asc', [$table, 'main']);
        $onePk = array_sum(array_map(fn ($r) => (int) $r->primary, $rows)) === 1;
        foreach ($rows as $r) {
            $type = strtolower($r->type);
            $name = preg_quote($r->name, '/');
            $collation = preg_match('/\b' . $name . '\b[^,(]+(?:\([^()]+\)[^,]*)?(?:(?:default|check|as)\s*(?:\(.*?\))?[^,]*)*collate\s+["\'`]?(\w+)/i', $sql, $m) === 1 ? strtolower($m[1]) : null;
            $this->columns[] = new Fluent([
                'name' => $r->name,
                'type' => strtok($type, '(') ?: '',
                'full_type_definition' => $type,
                'nullable' => (bool) $r->nullable,
                'default' => is_null($r->default) ? null : new Expression('(' . $r->default . ')'),
                'autoIncrement' => $onePk && $r->primary && $type === 'integer',
                'collation' => $collation,
            ]);
        }
        $indexes = $db->select('select \'primary\' as name, group_concat(col) as columns, 1 as "unique", 1 as "primary" from (select name as col from pragma_table_xinfo(?, ?) where pk > 0 order by pk, cid) group by name union select name, group_concat(col) as columns, "unique", origin = \'pk\' as "primary" from (select il.*, ii.name as col from pragma_index_list(?, ?) il, pragma_index_info(il.name, ?) ii order by il.seq, ii.seqno) group by name, "unique", "primary"', [$table, 'main', $table, 'main', 'main']);
        $primaries = array_filter($indexes, fn ($i) => (bool) $i->primary);
        foreach ($indexes as $i) {
            if ($i->primary && count($primaries) > 1 && $i->name === 'primary') {
                continue;
            }
            $index = new Fluent([
                'name' => $i->primary ? 'primary' : ($i->unique ? 'unique' : 'index'),
                'index' => strtolower($i->name),
                'columns' => $i->columns ? explode(',', $i->columns) : [],
            ]);
            if ($i->primary) {
                $this->primary = $index;
            } else {
                $this->indexes[] = $index;
            }
        }
        $keys = $db->select('select group_concat("from") as columns, "table" as foreign_table, group_concat("to") as foreign_columns, on_update, on_delete from (select * from pragma_foreign_key_list(?, ?) order by id desc, seq) group by id, "table", on_update, on_delete', [$table, 'main']);
        foreach ($keys as $k) {
            $this->foreign[] = new ForeignKeyDefinition([
                'columns' => explode(',', $k->columns),
                'on' => new Expression($k->foreign_table),
                'references' => explode(',', $k->foreign_columns),
                'onUpdate' => strtolower($k->on_update),
                'onDelete' => strtolower($k->on_delete),
            ]);
        }
    }

    /** Laravel 13's `BlueprintState::update`. */
    public function update(Fluent $command): void
    {
        switch ($command->name) {
            case 'add':
                $this->columns[] = $command->column;
                break;
            case 'change':
                foreach ($this->columns as $i => $column) {
                    if ($column->name === $command->column->name) {
                        $this->columns[$i] = $command->column;
                        break;
                    }
                }
                break;
            case 'renameColumn':
                foreach ($this->columns as $column) {
                    if ($column->name === $command->from) {
                        $column->name = $command->to;
                        break;
                    }
                }
                foreach (array_merge([$this->primary], $this->indexes, $this->foreign) as $key) {
                    if ($key !== null) {
                        $key->columns = str_replace($command->from, $command->to, $key->columns);
                    }
                }
                break;
            case 'dropColumn':
                $this->columns = array_values(array_filter($this->columns, fn ($c) => !in_array($c->name, $command->columns, true)));
                break;
            case 'primary':
                $this->primary = $command;
                break;
            case 'unique':
            case 'index':
                $this->indexes[] = $command;
                break;
            case 'foreign':
                $this->foreign[] = $command;
                break;
            case 'dropPrimary':
                $this->primary = null;
                break;
            case 'dropIndex':
            case 'dropUnique':
                $this->indexes = array_values(array_filter($this->indexes, fn ($i) => $i->index !== $command->index));
                break;
            case 'dropForeign':
                $this->foreign = array_values(array_filter($this->foreign, fn ($f) => $f->columns !== $command->columns));
                break;
        }
    }
}

/** What the three grammars share: one column's definition, and `rename column`. */
trait EggcatLaravel13Grammar
{
    /** A column as Laravel 13 declares it: its type (or the type it has), then the modifiers. */
    public function eggcatColumn(Blueprint $blueprint, Fluent $column): string
    {
        return $this->addModifiers($this->wrap($column) . ' ' . ($column->full_type_definition ?? $this->getType($column)), $blueprint, $column);
    }

    public function compileRenameColumn(Blueprint $blueprint, Fluent $command, Connection $connection)
    {
        return sprintf('alter table %s rename column %s to %s', $this->wrapTable($blueprint), $this->wrap($command->from), $this->wrap($command->to));
    }
}

final class EggcatMySqlGrammar extends MySqlGrammar
{
    use EggcatLaravel13Grammar;

    protected $modifiers = [
        'Unsigned', 'Charset', 'Collate', 'VirtualAs', 'StoredAs', 'Nullable',
        'Default', 'OnUpdate', 'Invisible', 'Increment', 'Comment', 'After', 'First',
    ];

    public function compileAdd(Blueprint $blueprint, Fluent $command)
    {
        return 'alter table ' . $this->wrapTable($blueprint) . ' add ' . $this->eggcatColumn($blueprint, $command->column);
    }

    public function compileChange(Blueprint $blueprint, Fluent $command, Connection $connection)
    {
        return 'alter table ' . $this->wrapTable($blueprint) . ' modify ' . $this->eggcatColumn($blueprint, $command->column);
    }
}

final class EggcatPostgresGrammar extends PostgresGrammar
{
    use EggcatLaravel13Grammar;

    protected $modifiers = ['Collate', 'Nullable', 'Default', 'VirtualAs', 'StoredAs', 'GeneratedAs', 'Increment'];

    public function compileAdd(Blueprint $blueprint, Fluent $command)
    {
        return 'alter table ' . $this->wrapTable($blueprint) . ' add column ' . $this->eggcatColumn($blueprint, $command->column);
    }

    public function compileChange(Blueprint $blueprint, Fluent $command, Connection $connection)
    {
        $column = $command->column;
        $changes = ['type ' . $this->getType($column) . $this->modifyCollate($blueprint, $column)];
        foreach (['Nullable', 'Default', 'GeneratedAs'] as $modifier) {
            foreach ((array) $this->{"modify$modifier"}($blueprint, $column) as $change) {
                $changes[] = $change;
            }
        }
        return sprintf('alter table %s %s', $this->wrapTable($blueprint), implode(', ', $this->prefixArray('alter column ' . $this->wrap($column), $changes)));
    }

    protected function modifyNullable(Blueprint $blueprint, Fluent $column)
    {
        if ($column->change) {
            return $column->nullable ? 'drop not null' : 'set not null';
        }
        return $column->nullable ? ' null' : ' not null';
    }

    protected function modifyDefault(Blueprint $blueprint, Fluent $column)
    {
        if ($column->change) {
            return $column->autoIncrement ? null : (is_null($column->default) ? 'drop default' : 'set default ' . $this->getDefaultValue($column->default));
        }
        return is_null($column->default) ? null : ' default ' . $this->getDefaultValue($column->default);
    }

    protected function modifyGeneratedAs(Blueprint $blueprint, Fluent $column)
    {
        // No migration here declares an identity column: Laravel 13 drops one on every change.
        return $column->change && !$column->autoIncrement ? ['drop identity if exists'] : null;
    }

    protected function modifyIncrement(Blueprint $blueprint, Fluent $column)
    {
        return !$column->change && in_array($column->type, $this->serials) && $column->autoIncrement ? ' primary key' : null;
    }
}

final class EggcatSQLiteGrammar extends SQLiteGrammar
{
    use EggcatLaravel13Grammar;

    protected $modifiers = ['Increment', 'Nullable', 'Default', 'Collate', 'VirtualAs', 'StoredAs'];

    protected function modifyCollate(Blueprint $blueprint, Fluent $column)
    {
        return is_null($column->collation) ? null : " collate '{$column->collation}'";
    }

    public function compileAdd(Blueprint $blueprint, Fluent $command)
    {
        return 'alter table ' . $this->wrapTable($blueprint) . ' add column ' . $this->eggcatColumn($blueprint, $command->column);
    }

    // Done by the table's rebuild (compileAlter).
    public function compileChange(Blueprint $blueprint, Fluent $command, Connection $connection) { return null; }
    public function compileForeign(Blueprint $blueprint, Fluent $command) { return null; }
    public function compileDropForeign(Blueprint $blueprint, Fluent $command) { return null; }

    public function compileDropColumn(Blueprint $blueprint, Fluent $command, Connection $connection)
    {
        return array_map(fn ($c) => 'alter table ' . $this->wrapTable($blueprint) . ' drop column ' . $this->wrap($c), $command->columns);
    }

    /** Laravel 13's `compileAlter`: the table made anew from its state, rows copied over. */
    public function compileAlter(EggcatBlueprint $blueprint, Fluent $command, Connection $connection): array
    {
        $state = $blueprint->state;
        $names = [];
        $autoIncrement = null;
        $columns = [];
        foreach ($state->columns as $column) {
            $autoIncrement = $column->autoIncrement ? $column->name : $autoIncrement;
            $names[] = $this->wrap($column);
            $columns[] = $this->eggcatColumn($blueprint, $column);
        }
        $indexes = array_map(fn ($i) => $this->{'compile' . ucfirst($i->name)}($blueprint, $i), $state->indexes);
        $table = $this->wrapTable($blueprint);
        $temp = $this->wrapTable('__temp__' . $blueprint->getTable());
        $names = implode(', ', $names);
        $keys = implode('', array_map(fn ($f) => $this->eggcatForeignKey($f), $state->foreign));
        $primary = $autoIncrement || $state->primary === null ? '' : ', primary key (' . $this->columnize($state->primary->columns) . ')';
        $fks = (int) ($connection->selectOne('pragma foreign_keys')->foreign_keys ?? 0);
        return array_values(array_filter(array_merge([
            $fks ? 'pragma foreign_keys = off' : null,
            sprintf('create table %s (%s%s%s)', $temp, implode(', ', $columns), $keys, $primary),
            sprintf('insert into %s (%s) select %s from %s', $temp, $names, $names, $table),
            "drop table $table",
            sprintf('alter table %s rename to %s', $temp, $table),
        ], $indexes, [$fks ? 'pragma foreign_keys = on' : null])));
    }

    private function eggcatForeignKey(Fluent $f): string
    {
        $sql = sprintf(', foreign key(%s) references %s(%s)', $this->columnize($f->columns), $this->wrapTable($f->on), $this->columnize((array) $f->references));
        $sql .= is_null($f->onDelete) ? '' : " on delete {$f->onDelete}";
        return $sql . (is_null($f->onUpdate) ? '' : " on update {$f->onUpdate}");
    }
}

/** Connections whose schema builder has Laravel 13's semantics (the `Schema` facade asks them). */
trait EggcatLaravel13Schema
{
    /** While set, the schema builder is this filter (see EggcatTablesOnly). */
    public ?array $eggcatOnlyTables = null;

    public function getSchemaBuilder()
    {
        $builder = parent::getSchemaBuilder();
        $builder->blueprintResolver(fn ($table, $callback, $prefix) => new EggcatBlueprint($table, $callback, $prefix));
        return $this->eggcatOnlyTables === null ? $builder : new EggcatTablesOnly($builder, $this->eggcatOnlyTables);
    }
}

final class EggcatMySqlConnection extends Illuminate\Database\MySqlConnection
{
    use EggcatLaravel13Schema;

    protected function getDefaultSchemaGrammar() { return $this->withTablePrefix(new EggcatMySqlGrammar()); }
}

final class EggcatPostgresConnection extends Illuminate\Database\PostgresConnection
{
    use EggcatLaravel13Schema;

    protected function getDefaultSchemaGrammar() { return $this->withTablePrefix(new EggcatPostgresGrammar()); }
}

final class EggcatSQLiteConnection extends Illuminate\Database\SQLiteConnection
{
    use EggcatLaravel13Schema;

    protected function getDefaultSchemaGrammar() { return $this->withTablePrefix(new EggcatSQLiteGrammar()); }
}

Connection::resolverFor('mysql', fn ($pdo, $database, $prefix, $config) => new EggcatMySqlConnection($pdo, $database, $prefix, $config));
Connection::resolverFor('pgsql', fn ($pdo, $database, $prefix, $config) => new EggcatPostgresConnection($pdo, $database, $prefix, $config));
Connection::resolverFor('sqlite', fn ($pdo, $database, $prefix, $config) => new EggcatSQLiteConnection($pdo, $database, $prefix, $config));
