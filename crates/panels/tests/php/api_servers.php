<?php
// Pelican's servers as the egg routes show them (`?include=servers`, api.php), and the servers
// the tests put on the harness's panel. Neither Pelican's Server model nor its ServerTransformer
// is in ../shared/panels-src, so both are written here from what is: the `servers` table as
// Pelican's migrations make it (migrations.php, EGGCAT_SERVER_TABLES) and the server Pelican's
// own snapshot shows (pelican-api/tests/Integration/Api/Fixtures/Application/__snapshots__/
// EggFixtureTest__test_view_with_all_includes__1.json), built from BuildsTestFixture.php's
// data, which eggcat_api_fixture_servers() replays. api.rs holds the result to that snapshot.
// Requires boot.php, api_stand_ins.php and Pelican's BaseTransformer (api.php loads them first).

namespace App\Models {
    use Illuminate\Database\Eloquent\Model;

    /**
     * Pelican's Server model, as far as the egg routes read it: a row of `servers`, which
     * Egg::servers() (`hasMany(Server::class, 'egg_id')`, Egg.php) loads. RESOURCE_NAME is
     * what BuildsTestFixture gives its admin key a permission on (`Server::RESOURCE_NAME =>
     * AdminAcl::READ | AdminAcl::WRITE`) and what the snapshot names each server (`"object":
     * "server"`), so EggTransformer::includeServers authorizes on it.
     */
    class Server extends Model
    {
        public const RESOURCE_NAME = 'server';

        protected $table = 'servers';

        protected $guarded = [];
    }
}

namespace App\Transformers\Api\Application {
    use App\Models\EggVariable;
    use App\Models\Server;
    use Illuminate\Database\Capsule\Manager as Capsule;

    /**
     * A server as the snapshot shows it, each attribute from the column of `servers` that
     * holds it (the column names are the migrations'; the key names, nesting and types are the
     * snapshot's): `identifier` is `uuid_short` (2024_04_14_002250 renamed `uuidShort`);
     * `suspended` is the status `suspended` and `installed` 0 for the statuses `installing` and
     * `install_failed`, the values 2021_01_17_152623 gave the columns `suspended` and
     * `installed` it replaced with `status` (the snapshot: status null, installed 1);
     * `oom_disabled` is the opposite of `oom_killer` (2024_05_08_094823 turned one into the
     * other; the snapshot: true and false); `feature_limits` are `database_limit`,
     * `allocation_limit` and `backup_limit`; `user` is `owner_id`. The environment: each of the
     * egg's variables with the server's value of it (`server_variables`), else its default,
     * then `STARTUP` and `P_SERVER_UUID`, in the snapshot's order.
     */
    class ServerTransformer extends BaseTransformer
    {
        public function getResourceName(): string
        {
            return Server::RESOURCE_NAME;
        }

        /**
         * @param  Server  $server
         */
        public function transform($server): array
        {
            return [
                'id' => $server->id,
                'external_id' => $server->external_id,
                'uuid' => $server->uuid,
                'identifier' => $server->uuid_short,
                'name' => $server->name,
                'description' => $server->description,
                'status' => $server->status,
                'suspended' => $server->status === 'suspended',
                'limits' => [
                    'memory' => $server->memory,
                    'swap' => $server->swap,
                    'disk' => $server->disk,
                    'io' => $server->io,
                    'cpu' => $server->cpu,
                    'threads' => $server->threads,
                    'oom_disabled' => !$server->oom_killer,
                    'oom_killer' => (bool) $server->oom_killer,
                ],
                'feature_limits' => [
                    'databases' => $server->database_limit,
                    'allocations' => $server->allocation_limit,
                    'backups' => $server->backup_limit,
                ],
                'user' => $server->owner_id,
                'node' => $server->node_id,
                'allocation' => $server->allocation_id,
                'egg' => $server->egg_id,
                'container' => [
                    'startup_command' => $server->startup,
                    'image' => $server->image,
                    'installed' => in_array($server->status, ['installing', 'install_failed'], true) ? 0 : 1,
                    'environment' => $this->environment($server),
                ],
                $server->getUpdatedAtColumn() => $this->formatTimestamp($server->updated_at),
                $server->getCreatedAtColumn() => $this->formatTimestamp($server->created_at),
            ];
        }

        /** The server's environment: the egg's variables, then what the panel sets. */
        private function environment(Server $server): array
        {
            $values = Capsule::table('server_variables')->where('server_id', $server->id)->pluck('variable_value', 'variable_id');
            $environment = [];
            foreach (EggVariable::query()->where('egg_id', $server->egg_id)->get() as $variable) {
                $environment[$variable->env_variable] = $values[$variable->id] ?? $variable->default_value;
            }
            $environment['STARTUP'] = $server->startup;
            $environment['P_SERVER_UUID'] = $server->uuid;
            return $environment;
        }
    }
}

namespace {
    use App\Models\Server;
    use Illuminate\Database\Capsule\Manager as Capsule;

    /**
     * BuildsTestFixture::buildTestFixture's server and what it stands on: its owner (user 101),
     * its node (100), the three allocations (100 and 101 the server's, 102 free), the server
     * (100, on the fixture egg 100) and its values of the egg's two variables (100
     * `custom.jar`, 101 `internal`), ids and pinned attributes as the fixture sets them. What
     * the fixture leaves to Pelican's factories (not in panels-src) is the snapshot's where it
     * shows it (the server's limits, `threads`, the feature limits, `status`) and a plain value
     * elsewhere (a password, the node's sizes), in the columns the migrations make NOT NULL.
     * The rest of the fixture (roles, its keys, which EGGCAT_API_KEYS stands for, the subuser,
     * database, mount, backup, schedule and activity logs) is in tables the egg routes do not
     * read, and is not made.
     */
    function eggcat_api_fixture_servers(): void
    {
        $db = Capsule::connection();
        $now = date('Y-m-d H:i:s');
        $at = ['created_at' => $now, 'updated_at' => $now];
        $db->table('users')->insert([
            'id' => 101, 'uuid' => '00000000-0000-4000-8000-000000000101', 'username' => 'fixture.owner',
            'email' => 'owner@fixture.test', 'external_id' => 'fixture-owner-ext', 'password' => 'not a hash',
        ] + $at);
        $db->table('nodes')->insert([
            'id' => 100, 'uuid' => '00000000-0000-4000-8000-000000000200', 'public' => 1,
            'name' => 'fixture-node', 'fqdn' => 'node.fixture.test', 'tags' => json_encode(['fixture']),
            'memory' => 1024, 'disk' => 1024, 'daemon_token_id' => 'fixturenodetoken',
            'daemon_token' => 'not encrypted here', 'daemon_base' => '/var/lib/pelican/volumes',
        ] + $at);
        foreach ([[100, 25565, null], [101, 25566, 'Secondary allocation'], [102, 25567, null]] as [$id, $port, $notes]) {
            $db->table('allocations')->insert(['id' => $id, 'node_id' => 100, 'ip' => '192.0.2.10', 'port' => $port, 'notes' => $notes] + $at);
        }
        Server::query()->forceCreate([
            'id' => 100, 'uuid' => '00000000-0000-4000-8000-000000000400', 'uuid_short' => 'fixture',
            'external_id' => 'fixture-external-1', 'name' => 'Fixture Server',
            'description' => 'A pinned server for the API test fixture suite.', 'owner_id' => 101,
            'node_id' => 100, 'allocation_id' => 100, 'egg_id' => 100,
            'startup' => 'java -jar {{SERVER_JARFILE}}', 'image' => 'ghcr.io/fixture/java:21',
            'memory' => 512, 'swap' => 0, 'disk' => 512, 'io' => 500, 'cpu' => 0, 'threads' => null,
            'oom_killer' => 0, 'database_limit' => null, 'allocation_limit' => null, 'backup_limit' => 0,
            'status' => null,
        ]);
        $db->table('allocations')->whereIn('id', [100, 101])->update(['server_id' => 100]);
        foreach ([[100, 100, 'custom.jar'], [101, 101, 'internal']] as [$id, $variable, $value]) {
            $db->table('server_variables')->insert(['id' => $id, 'server_id' => 100, 'variable_id' => $variable, 'variable_value' => $value] + $at);
        }
    }

    /**
     * `php api.php add-server EGG NAME [ENV=VALUE ...]`: a server of egg EGG named NAME, owned
     * by the fixture's user on the fixture's node (eggcat_api_fixture_servers() made them), on
     * an allocation of its own, with a value of each of the egg's variables (VALUE where given,
     * else the variable's default), as the fixture's server has one of each; its startup
     * command, image and limits are the fixture server's. Its uuid is made from its id
     * (`...-000000000400` for the fixture's 100). Returns `{"id", "uuid", "name"}`.
     */
    function eggcat_api_add_server(int $egg, string $name, array $values): array
    {
        $db = Capsule::connection();
        return $db->transaction(function () use ($db, $egg, $name, $values) {
            $variables = App\Models\EggVariable::query()->where('egg_id', $egg)->get()->keyBy('env_variable');
            foreach (array_keys($values) as $env) {
                if (!isset($variables[$env])) {
                    throw new InvalidArgumentException("egg $egg has no variable $env");
                }
            }
            $id = ($db->table('servers')->max('id') ?? 100) + 1;
            $now = date('Y-m-d H:i:s');
            $allocation = $db->table('allocations')->insertGetId([
                'node_id' => 100, 'ip' => '192.0.2.10', 'port' => 26000 + $id, 'created_at' => $now, 'updated_at' => $now,
            ]);
            $server = Server::query()->forceCreate([
                'id' => $id, 'uuid' => sprintf('00000000-0000-4000-8000-%012d', 300 + $id),
                'uuid_short' => sprintf('server%02d', $id), 'name' => $name, 'owner_id' => 101,
                'node_id' => 100, 'allocation_id' => $allocation, 'egg_id' => $egg,
                'startup' => 'java -jar {{SERVER_JARFILE}}', 'image' => 'ghcr.io/fixture/java:21',
                'memory' => 512, 'swap' => 0, 'disk' => 512, 'io' => 500, 'cpu' => 0,
            ]);
            $db->table('allocations')->where('id', $allocation)->update(['server_id' => $id]);
            foreach ($variables as $env => $variable) {
                $db->table('server_variables')->insert([
                    'server_id' => $id, 'variable_id' => $variable->id,
                    'variable_value' => $values[$env] ?? $variable->default_value,
                    'created_at' => $now, 'updated_at' => $now,
                ]);
            }
            return ['id' => $server->id, 'uuid' => $server->uuid, 'name' => $server->name];
        });
    }
}
