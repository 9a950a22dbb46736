<?php
// What the differential test reports about a database's tables, the same on Laravel 8 (boot.php)
// and Laravel 13 (laravel13_compare.php): columns, indexes and the plan of a query, each as the
// database itself describes them.

use Illuminate\Database\Capsule\Manager as Capsule;

/**
 * A table's columns in table order, each as `name type[ not null][ default X]` the way the
 * database describes it (SQLite `PRAGMA table_info`, MariaDB `information_schema.columns`,
 * PostgreSQL `pg_attribute`).
 */
function eggcat_columns(string $table): array
{
    $db = Capsule::connection();
    $rows = match ($db->getDriverName()) {
        'sqlite' => $db->select('select name, type, "notnull" as not_null, dflt_value as "default" from pragma_table_info(?) order by cid', [$table]),
        'mysql', 'mariadb' => $db->select("select column_name as name, concat(column_type, if(collation_name is null, '', concat(' collate ', collation_name))) as type, is_nullable = 'NO' as not_null, column_default as `default` from information_schema.columns where table_schema = database() and table_name = ? order by ordinal_position", [$table]),
        'pgsql' => $db->select("select attname as name, format_type(atttypid, atttypmod) || coalesce(' collate ' || nullif(collname, 'default'), '') as type, attnotnull as not_null, pg_get_expr(adbin, adrelid) as \"default\" from pg_attribute left join pg_attrdef on adrelid = attrelid and adnum = attnum left join pg_collation c on c.oid = attcollation where attrelid = ?::regclass and attnum > 0 and not attisdropped order by attnum", [$table]),
    };
    return array_map(
        fn ($c) => trim("$c->name $c->type" . ($c->not_null ? ' not null' : '') . (is_null($c->default) ? '' : " default $c->default")),
        $rows
    );
}

/** A table's indexes, sorted, each as `name [unique] (columns)`. */
function eggcat_indexes(string $table): array
{
    $db = Capsule::connection();
    $rows = match ($db->getDriverName()) {
        'sqlite' => $db->select('select il.name, il."unique", group_concat(ii.name) as columns from pragma_index_list(?) il, pragma_index_info(il.name) ii group by il.name, il."unique"', [$table]),
        'mysql', 'mariadb' => $db->select('select index_name as name, not non_unique as `unique`, group_concat(column_name order by seq_in_index) as columns from information_schema.statistics where table_schema = database() and table_name = ? group by index_name, non_unique', [$table]),
        'pgsql' => $db->select("select i.relname as name, x.indisunique as \"unique\", string_agg(a.attname, ',' order by k.n) as columns from pg_index x join pg_class i on i.oid = x.indexrelid cross join lateral unnest(x.indkey) with ordinality k(attnum, n) join pg_attribute a on a.attrelid = x.indrelid and a.attnum = k.attnum where x.indrelid = ?::regclass group by i.relname, x.indisunique", [$table]),
    };
    $out = array_map(fn ($i) => "$i->name" . ($i->unique ? ' unique' : '') . " ($i->columns)", $rows);
    sort($out);
    return $out;
}

/** The database's plan for one query, as lines (`EXPLAIN QUERY PLAN` / `EXPLAIN`). */
function eggcat_plan(string $sql, array $bindings): array
{
    $db = Capsule::connection();
    return match ($db->getDriverName()) {
        'sqlite' => array_map(fn ($r) => $r->detail, $db->select("explain query plan $sql", $bindings)),
        'mysql', 'mariadb' => array_map(fn ($r) => "type=$r->type key=" . ($r->key ?? 'none') . " rows=$r->rows extra=" . ($r->Extra ?? ''), $db->select("explain $sql", $bindings)),
        'pgsql' => array_map(fn ($r) => $r->{'QUERY PLAN'}, $db->select("explain (costs off) $sql", $bindings)),
    };
}

/** A table's foreign keys, sorted, each as `columns -> table(columns) on delete X`. */
function eggcat_foreign_keys(string $table): array
{
    $db = Capsule::connection();
    $rows = match ($db->getDriverName()) {
        'sqlite' => $db->select('select group_concat("from") || \' -> \' || "table" || \'(\' || group_concat("to") || \') on delete \' || lower(on_delete) as fk from pragma_foreign_key_list(?) group by id', [$table]),
        'mysql', 'mariadb' => $db->select("select concat(k.constraint_name, ': ', group_concat(k.column_name order by k.ordinal_position), ' -> ', k.referenced_table_name, '(', group_concat(k.referenced_column_name order by k.ordinal_position), ') on delete ', lower(r.delete_rule)) as fk from information_schema.key_column_usage k join information_schema.referential_constraints r on r.constraint_schema = k.constraint_schema and r.constraint_name = k.constraint_name where k.table_schema = database() and k.table_name = ? group by k.constraint_name, k.referenced_table_name, r.delete_rule", [$table]),
        'pgsql' => $db->select("select conname || ': ' || pg_get_constraintdef(oid) as fk from pg_constraint where conrelid = ?::regclass and contype = 'f'", [$table]),
    };
    $out = array_map(fn ($r) => $r->fk, $rows);
    sort($out);
    return $out;
}

/** The eggs' two tables as the database describes them: columns, indexes, foreign keys. */
function eggcat_tables(): array
{
    $out = [];
    foreach (['eggs', 'egg_variables'] as $table) {
        $out[$table] = ['columns' => eggcat_columns($table), 'indexes' => eggcat_indexes($table), 'foreign' => eggcat_foreign_keys($table)];
    }
    return $out;
}
