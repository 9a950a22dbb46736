<?php
// Pterodactyl's application API for nests and eggs, on loopback, for the tests of `eggcat panel
// status` on a Pterodactyl panel (issue 37, section 6): `php -S 127.0.0.1:PORT ptero_api.php`
// serves it; `php ptero_api.php setup` makes its tables, the nests Pterodactyl's NestSeeder
// makes, the users and the application keys; `import NEST FILE...`, `update EGG FILE` and `edit
// EGG JSON` change its eggs as an admin does (Admin -> Nests: Import Egg, an egg's Update Egg,
// the egg's and its variables' forms).
//
// Environment: EGGCAT_PANELS_SRC (../shared/panels-src), EGGCAT_DB (boot.php; an SQLite file:
// each request is a run of this script), EGGCAT_API_KEYS (a JSON file: `rate_limit`, requests a
// minute per user, Pterodactyl's default 240 (config/http.php), and `keys`, read by setup, see
// eggcat_ptero_setup) and EGGCAT_API_STATE (a folder for the throttle's counts).
//
// The data path is Pterodactyl's own code, run unchanged: EggImporterService::handle (Import
// Egg: a new egg, a new uuid), EggUpdateImporterService::handle (Update Egg: the egg in place,
// variables by env_variable), EggParserService, the Egg and EggVariable models with their
// validation on save, over Pterodactyl's egg tables as the differential test makes them
// (boot.php's eggcat_pterodactyl_schema, from Pterodactyl's migrations in panels-src). And from
// ../shared/panels-src/pterodactyl-api: ApiKey (findToken), AdminAcl::check,
// BaseTransformer, NestTransformer, EggTransformer, EggVariableTransformer (every include they
// offer) and PterodactylSerializer (the `{"object", "attributes"}` envelope, `relationships`),
// on the stand-ins of ptero_api_stand_ins.php. What is written here, from the files named at
// each step, is what Laravel, Sanctum and Fractal do around them: the routes
// (routes/api-application.php, the nests group: index, view, a nest's eggs, one egg; GET only),
// the middleware in the order Laravel runs them (app/Http/Kernel.php's `api` and
// `application-api` groups and RouteServiceProvider's `throttle:api.application`, sorted by
// Laravel's middleware priority: authentication, then the throttle, then the route's bindings,
// scoped: an egg of another nest is not found), the controllers (Nests/NestController: nests
// paginated, 50 a page unless `per_page`; Nests/EggController: a nest's eggs, all of them; the
// includes of `?include=` as ApplicationApiController parses them, recursion limit 2), the
// requests' permissions (GetNestsRequest: nests read; GetEggsRequest, GetEggRequest: eggs read;
// account keys of root admins pass, ApplicationApiRequest::authorize) and the error bodies
// (app/Exceptions/Handler.php at the pinned commit: `{"errors": [{"code", "status", "detail"}]}`;
// its messages as Laravel's exceptions carry them).

require __DIR__ . '/boot.php';
require __DIR__ . '/ptero_api_stand_ins.php';
foreach ([
    'pterodactyl/app/Services/Eggs/Sharing/EggUpdateImporterService.php',
    'pterodactyl-api/app/Models/ApiKey.php',
    'pterodactyl-api/app/Services/Acl/Api/AdminAcl.php',
    'pterodactyl-api/app/Transformers/Api/Application/BaseTransformer.php',
    'pterodactyl-api/app/Transformers/Api/Application/NestTransformer.php',
    'pterodactyl-api/app/Transformers/Api/Application/EggTransformer.php',
    'pterodactyl-api/app/Transformers/Api/Application/EggVariableTransformer.php',
    'pterodactyl-api/app/Extensions/League/Fractal/Serializers/PterodactylSerializer.php',
] as $file) {
    require_once "$src/$file";
}

/**
 * ServerTransformer (not in panels-src), named by the `servers` includes; the harness has no
 * servers, so it transforms none.
 */
final class EggcatPteroServerTransformer extends Pterodactyl\Transformers\Api\Application\BaseTransformer
{
    public function getResourceName(): string { return Pterodactyl\Models\Server::RESOURCE_NAME; }
    public function transform($model): array { throw new LogicException('the harness serves no servers'); }
}
class_alias(EggcatPteroServerTransformer::class, 'Pterodactyl\Transformers\Api\Application\ServerTransformer');

use Illuminate\Database\Capsule\Manager as Capsule;

// A test's database: SQLite need not wait for the disk at each commit (what is stored is the
// same; a crash of the machine mid-test loses a database the test would not reuse).
if (Capsule::connection()->getDriverName() === 'sqlite') {
    Capsule::connection()->statement('PRAGMA synchronous = OFF');
}
use League\Fractal\Resource\Collection;
use League\Fractal\Resource\Item;
use League\Fractal\Resource\NullResource;
use League\Fractal\Resource\ResourceAbstract;
use League\Fractal\TransformerAbstract;
use Pterodactyl\Extensions\League\Fractal\Serializers\PterodactylSerializer;
use Pterodactyl\Models\ApiKey;
use Pterodactyl\Models\Egg;
use Pterodactyl\Models\Nest;
use Pterodactyl\Models\User;
use Pterodactyl\Services\Acl\Api\AdminAcl;
use Pterodactyl\Transformers\Api\Application\EggTransformer;
use Pterodactyl\Transformers\Api\Application\NestTransformer;

/** An HTTP error as Pterodactyl's Handler renders it (app.debug off). */
final class EggcatPteroError extends Exception
{
    public function __construct(public int $status, public string $class, string $detail, public array $headers = [])
    {
        parent::__construct($detail);
    }

    /** Handler::convertExceptionToArray. */
    public function body(): array
    {
        return ['errors' => [['code' => $this->class, 'status' => strval($this->status), 'detail' => $this->getMessage()]]];
    }
}

/** ModelNotFoundException as Laravel turns it into a NotFoundHttpException, with Handler's words. */
function eggcat_ptero_not_found(): EggcatPteroError
{
    return new EggcatPteroError(404, 'NotFoundHttpException', 'The requested resource could not be found on the server.');
}

/**
 * Manager::parseIncludes (with autoIncludeParents and limitRecursion(2)) on the `include`
 * input as ApplicationApiController reads it: a list, or text split at commas; trimmed, empty
 * ones dropped.
 */
function eggcat_ptero_includes(mixed $input): array
{
    $input = is_array($input) ? $input : explode(',', (string) $input);
    $trim = fn (string $name) => implode('.', array_slice(explode('.', $name), 0, 2));
    $requested = [];
    foreach (array_filter(array_map(fn ($v) => trim((string) $v), $input)) as $include) {
        [$name, $modifiers] = array_pad(explode(':', $include, 2), 2, '');
        [, $sub] = array_pad($modifiers ? explode('.', $modifiers, 2) : [''], 2, null);
        $name = $trim($name);
        if (in_array($name, $requested, true)) {
            continue;
        }
        $requested[] = $name;
        if ($sub) {
            $requested[] = $trim("$name.$sub");
        }
    }
    $parsed = [];
    foreach ($requested as $include) {
        $nested = explode('.', $include);
        $part = array_shift($nested);
        $parsed[] = $part;
        while ($nested) {
            $part .= '.' . array_shift($nested);
            $parsed[] = $part;
        }
    }
    return array_values(array_unique($parsed));
}

/**
 * Scope::toArray: the resource serialized by `$serializer`, each transformed item with the
 * includes requested at its place (`$path`: the includes from the root), merged by the
 * serializer; a collection's paginator as `meta`.
 */
function eggcat_ptero_scope(ResourceAbstract $resource, array $requested, array $path, PterodactylSerializer $serializer): ?array
{
    $key = empty($resource->resourceKey) ? null : $resource->resourceKey;
    if ($resource instanceof Collection) {
        $items = [];
        foreach ($resource->data as $value) {
            $items[] = eggcat_ptero_fire($resource->transformer, $value, $requested, $path, $serializer);
        }
        $data = $serializer->collection($key, $items);
    } elseif ($resource instanceof Item) {
        $data = $serializer->item($key, eggcat_ptero_fire($resource->transformer, $resource->data, $requested, $path, $serializer));
    } else {
        $data = $serializer->null();
    }
    $meta = $serializer->meta($resource instanceof Collection && $resource->paginator !== null
        ? $serializer->paginator($resource->paginator) : []);
    if ($data === null) {
        return $meta ?: null;
    }
    return $data + $meta;
}

/**
 * Scope::fireTransformer with TransformerAbstract::processIncludedResources: the transformer
 * (or closure) on one model, then each include it offers that is requested here (or that it
 * includes by default), by its `include{Name}` method, as a child scope.
 */
function eggcat_ptero_fire($transformer, $data, array $requested, array $path, PterodactylSerializer $serializer): array
{
    $transformed = is_callable($transformer) ? $transformer($data) : $transformer->transform($data);
    if (!$transformer instanceof TransformerAbstract || (!$transformer->getDefaultIncludes() && !$transformer->getAvailableIncludes())) {
        return $transformed;
    }
    $includes = $transformer->getDefaultIncludes();
    foreach ($transformer->getAvailableIncludes() as $include) {
        if (in_array(implode('.', [...$path, $include]), $requested, true)) {
            $includes[] = $include;
        }
    }
    $included = [];
    foreach ($includes as $include) {
        $method = 'include' . str_replace(' ', '', ucwords(str_replace('_', ' ', str_replace('-', ' ', $include))));
        $child = $transformer->$method($data, null);
        if ($child !== null) {
            $included[$include] = eggcat_ptero_scope($child, $requested, [...$path, $include], $serializer);
        }
    }
    return $serializer->mergeIncludes($transformed, $included);
}

/** The root scope of a response (Spatie's Fractal::createData: the transformer's resource name). */
function eggcat_ptero_fractal(ResourceAbstract $resource, array $requested): array
{
    $resource->resourceKey ??= $resource->transformer->getResourceName();
    return eggcat_ptero_scope($resource, $requested, [], new PterodactylSerializer());
}

/**
 * ThrottleRequests with RouteServiceProvider's `api.application` limiter: `rate_limit`
 * requests a minute per user (its uuid); the headers Laravel sets.
 */
function eggcat_ptero_throttle(string $uuid, int $limit): array
{
    $dir = getenv('EGGCAT_API_STATE') ?: sys_get_temp_dir();
    $file = fopen("$dir/ptero-throttle-" . md5($uuid), 'c+');
    flock($file, LOCK_EX);
    $now = time();
    $hits = array_values(array_filter(json_decode(stream_get_contents($file) ?: '[]', true), fn ($t) => $t > $now - 60));
    if (count($hits) >= $limit) {
        flock($file, LOCK_UN);
        throw new EggcatPteroError(429, 'ThrottleRequestsException', 'Too Many Attempts.', [
            'Retry-After' => max(1, $hits[0] + 60 - $now), 'X-RateLimit-Limit' => $limit, 'X-RateLimit-Remaining' => 0,
        ]);
    }
    $hits[] = $now;
    ftruncate($file, 0);
    rewind($file);
    fwrite($file, json_encode($hits));
    flock($file, LOCK_UN);
    return ['X-RateLimit-Limit' => $limit, 'X-RateLimit-Remaining' => $limit - count($hits)];
}

/**
 * Sanctum's guard with Pterodactyl's ApiKey as its token model: the bearer token
 * (Request::bearerToken), ApiKey::findToken (the identifier is its first 16 characters, the
 * rest the secret), a key not past `expires_at`, and its user.
 */
function eggcat_ptero_authenticate(array $headers): ?User
{
    $header = $headers['authorization'] ?? '';
    $at = strrpos($header, 'Bearer ');
    if ($at === false) {
        return null;
    }
    $token = substr($header, $at + 7);
    $token = str_contains($token, ',') ? strstr($token, ',', true) : $token;
    $key = $token === '' ? null : ApiKey::findToken($token);
    if ($key === null || ($key->expires_at !== null && $key->expires_at->isPast())) {
        return null;
    }
    $user = Capsule::table('users')->where('id', $key->user_id)->first();
    return $user === null ? null : new User($user->uuid, (bool) $user->root_admin, $key);
}

/**
 * Answers one request: [status, headers, body].
 */
function eggcat_ptero_handle(string $method, string $uri, array $headers, string $host): array
{
    $path = '/' . trim(parse_url($uri, PHP_URL_PATH) ?? '', '/');
    parse_str(parse_url($uri, PHP_URL_QUERY) ?? '', $query);
    $json = fn (int $status, array $data, array $extra = []) => [$status, ['Content-Type' => 'application/json'] + $extra, json_encode($data)];
    try {
        // routes/api-application.php, the nests group, under RouteServiceProvider's prefix.
        $routes = [
            ['#^/api/application/nests$#', 'nests.index', AdminAcl::RESOURCE_NESTS],
            ['#^/api/application/nests/([^/]+)$#', 'nests.view', AdminAcl::RESOURCE_NESTS],
            ['#^/api/application/nests/([^/]+)/eggs$#', 'eggs.index', AdminAcl::RESOURCE_EGGS],
            ['#^/api/application/nests/([^/]+)/eggs/([^/]+)$#', 'eggs.view', AdminAcl::RESOURCE_EGGS],
        ];
        $match = null;
        foreach ($routes as $route) {
            if (preg_match($route[0], $path, $m)) {
                $match = [$route, array_slice($m, 1)];
                break;
            }
        }
        $route = ltrim($path, '/');
        if ($match === null) {
            throw new EggcatPteroError(404, 'NotFoundHttpException', "The route $route could not be found.");
        }
        if ($method !== 'GET' && $method !== 'HEAD') {
            throw new EggcatPteroError(405, 'MethodNotAllowedHttpException', "The $method method is not supported for route $route. Supported methods: GET, HEAD.");
        }
        [[, $action, $acl], $parameters] = $match;
        // auth:sanctum.
        $user = eggcat_ptero_authenticate($headers);
        if ($user === null) {
            // Handler::unauthenticated: JSON when the request expects it (Accept names JSON),
            // else a redirect to the login page.
            $accept = strtolower(explode(',', $headers['accept'] ?? '')[0]);
            if (!str_contains($accept, '/json') && !str_contains($accept, '+json')) {
                return [302, ['Location' => "http://$host/auth/login"], ''];
            }
            throw new EggcatPteroError(401, 'AuthenticationException', 'Unauthenticated.');
        }
        $key = $user->currentAccessToken();
        // AuthenticateIPAccess: a key with allowed IPs is refused from any other address (each
        // entry here an address, not a range).
        $ips = $key->allowed_ips ?? [];
        if (!empty($ips) && !in_array($_SERVER['REMOTE_ADDR'] ?? '127.0.0.1', $ips, true)) {
            throw new EggcatPteroError(403, 'AccessDeniedHttpException', 'This IP address (' . ($_SERVER['REMOTE_ADDR'] ?? '127.0.0.1') . ') does not have permission to access the API using these credentials.');
        }
        $config = json_decode(file_get_contents(getenv('EGGCAT_API_KEYS')), true);
        $limits = eggcat_ptero_throttle($user->uuid, $config['rate_limit'] ?? 240);
        // SubstituteBindings, scoped: {nest:id}, then {egg:id} among the nest's eggs.
        $nest = null;
        $egg = null;
        if (isset($parameters[0])) {
            $nest = Nest::query()->where('id', $parameters[0])->first() ?? throw eggcat_ptero_not_found();
        }
        if (isset($parameters[1])) {
            $egg = $nest->eggs()->where('id', $parameters[1])->first() ?? throw eggcat_ptero_not_found();
        }
        // AuthenticateApplicationUser.
        if (!$user->root_admin) {
            throw new EggcatPteroError(403, 'AccessDeniedHttpException', 'This account does not have permission to access the API.');
        }
        // ApplicationApiRequest::authorize (an AuthorizationException, which Laravel renders
        // as an AccessDeniedHttpException with its message).
        if ($key->key_type !== ApiKey::TYPE_ACCOUNT && !AdminAcl::check($key, $acl, AdminAcl::READ)) {
            throw new EggcatPteroError(403, 'AccessDeniedHttpException', 'This action is unauthorized.');
        }
        // The controllers.
        $request = Illuminate\Http\Request::create($uri, 'GET');
        $request->setUserResolver(fn () => $user);
        $includes = eggcat_ptero_includes($query['include'] ?? []);
        switch ($action) {
            case 'nests.index':
                $resource = new Collection(null, NestTransformer::fromRequest($request));
                [$resource->data, $resource->paginator] = eggcat_ptero_paginate($query, "http://$host$path");
                return $json(200, eggcat_ptero_fractal($resource, $includes), $limits);
            case 'nests.view':
                return $json(200, eggcat_ptero_fractal(new Item($nest, NestTransformer::fromRequest($request)), $includes), $limits);
            case 'eggs.index':
                return $json(200, eggcat_ptero_fractal(new Collection($nest->eggs, EggTransformer::fromRequest($request)), $includes), $limits);
            case 'eggs.view':
                return $json(200, eggcat_ptero_fractal(new Item($egg, EggTransformer::fromRequest($request)), $includes), $limits);
        }
    } catch (EggcatPteroError $e) {
        return $json($e->status, $e->body(), $e->headers);
    } catch (Throwable $e) {
        // Handler::convertExceptionToArray for any other exception, app.debug off; the
        // harness says on stderr what it was (the test's log).
        error_log('ptero_api.php: ' . get_class($e) . ': ' . $e->getMessage() . ' at ' . $e->getFile() . ':' . $e->getLine());
        return $json(500, ['errors' => [[
            'code' => class_basename($e),
            'status' => '500',
            'detail' => 'An unexpected error was encountered while processing this request, please try again.',
        ]]]);
    }
}

/**
 * NestRepository::paginated (EloquentRepository: `paginate($perPage)`) with the page Laravel's
 * paginator reads (`page`, an integer of at least 1, else 1) and its URLs (the request's URL
 * without its query, `?page=N`): the nests of the page, and what IlluminatePaginatorAdapter
 * hands the serializer.
 */
function eggcat_ptero_paginate(array $query, string $url): array
{
    // NestController: `per_page` ?? 50, given to an `int` parameter (a text that is no number
    // fails there, a 500); Builder::paginate takes 0 as the model's 15.
    $perPage = $query['per_page'] ?? '';
    $perPage = $perPage === '' ? 50 : $perPage;
    if (!is_numeric($perPage)) {
        throw new TypeError('EloquentRepository::paginated(): Argument #1 ($perPage) must be of type int');
    }
    $perPage = (int) $perPage ?: 15;
    $page = filter_var($query['page'] ?? null, FILTER_VALIDATE_INT);
    $page = $page !== false && $page >= 1 ? $page : 1;
    $total = Nest::query()->count();
    $nests = $total ? Nest::query()->forPage($page, $perPage)->get() : new Illuminate\Database\Eloquent\Collection();
    return [$nests, [
        'total' => $total,
        'count' => $nests->count(),
        'per_page' => $perPage,
        'current_page' => $page,
        'last_page' => max((int) ceil($total / $perPage), 1),
        'url' => fn (int $n) => "$url?page=$n",
    ]];
}

/**
 * The harness's tables: Pterodactyl's `eggs`, `egg_variables` and `nests` (boot.php, as the
 * differential test makes them), and stand-ins for the tables the API reads beside them, with
 * the columns their models name (panels-src holds no migration of theirs): `users` (id, uuid,
 * root_admin), `api_keys` (app/Models/ApiKey.php's properties) and `servers` (empty: the
 * harness has no servers). The nests are NestSeeder's four (author support@pterodactyl.io).
 * `keys` (EGGCAT_API_KEYS): `[{"token", "key_type", "permissions": {"r_eggs": 1, ...},
 * "user": {"uuid", "root_admin"}, "allowed_ips"?, "expires_at"?}]`; the token's first 16
 * characters are the key's identifier, the rest its secret (stored as `encrypt()` would,
 * without the AES step: see `decrypt` in the stand-ins).
 */
function eggcat_ptero_setup(array $keys): void
{
    eggcat_pterodactyl_schema();
    $db = Capsule::connection();
    $db->table('nests')->delete();
    $db->statement('CREATE TABLE users (id integer primary key autoincrement, uuid varchar(36) not null unique, root_admin tinyint not null default 0, created_at datetime, updated_at datetime)');
    $db->statement('CREATE TABLE api_keys (' . implode(', ', [
        'id integer primary key autoincrement', 'user_id integer not null references users(id)',
        'key_type tinyint not null default 0', 'identifier varchar(16) unique', 'token text not null',
        'allowed_ips text', 'memo text', 'last_used_at datetime', 'expires_at datetime',
        'created_at datetime', 'updated_at datetime',
        ...array_map(fn ($r) => "r_$r tinyint not null default 0", [
            'servers', 'nodes', 'allocations', 'users', 'locations', 'nests', 'eggs', 'database_hosts', 'server_databases',
        ]),
    ]) . ')');
    $db->statement('CREATE TABLE servers (id integer primary key autoincrement, uuid varchar(36) not null, nest_id integer not null references nests(id), egg_id integer not null references eggs(id))');
    $now = date('Y-m-d H:i:s');
    foreach ([
        ['Minecraft', 'Minecraft - the classic game from Mojang. With support for Vanilla MC, Spigot, and many others!'],
        ['Source Engine', 'Includes support for most Source Dedicated Server games.'],
        ['Voice Servers', 'Voice servers such as Mumble and Teamspeak 3.'],
        ['Rust', 'Rust - A game where you must fight to survive.'],
    ] as $i => [$name, $description]) {
        $db->table('nests')->insert([
            'id' => $i + 1, 'uuid' => sprintf('00000000-0000-4000-8000-%012d', $i + 1), 'author' => 'support@pterodactyl.io',
            'name' => $name, 'description' => $description, 'created_at' => $now, 'updated_at' => $now,
        ]);
    }
    foreach ($keys as $k) {
        $user = $db->table('users')->where('uuid', $k['user']['uuid'])->first();
        $userId = $user->id ?? $db->table('users')->insertGetId([
            'uuid' => $k['user']['uuid'], 'root_admin' => $k['user']['root_admin'] ? 1 : 0, 'created_at' => $now, 'updated_at' => $now,
        ]);
        $db->table('api_keys')->insert([
            'user_id' => $userId, 'key_type' => $k['key_type'],
            'identifier' => substr($k['token'], 0, ApiKey::IDENTIFIER_LENGTH),
            'token' => base64_encode(serialize(substr($k['token'], ApiKey::IDENTIFIER_LENGTH))),
            'allowed_ips' => isset($k['allowed_ips']) ? json_encode($k['allowed_ips']) : null,
            'expires_at' => $k['expires_at'] ?? null, 'memo' => '', 'created_at' => $now, 'updated_at' => $now,
        ] + ($k['permissions'] ?? []));
    }
}

/** An uploaded egg file, as the admin's form hands it to the services. */
function eggcat_ptero_upload(string $path): Illuminate\Http\UploadedFile
{
    // EggImportFormRequest: `max:1000` (kilobytes) before the services run.
    if (filesize($path) > 1000 * 1024) {
        throw new RuntimeException('the file is over 1000 KB (EggImportFormRequest)');
    }
    return new Illuminate\Http\UploadedFile($path, 'egg.json', 'application/json', null, true);
}

/**
 * An admin's edit of egg `$id`: `{"egg": {column: value}, "variables": {"ENV": {column: value}
 * or null}}`, each saved through Pterodactyl's models (their validation on save), as the
 * admin's forms save them (EggController::update, EggVariableController; a variable not on the
 * egg is created, one given null deleted with its servers' values).
 */
function eggcat_ptero_edit(int $id, array $edit): void
{
    Capsule::connection()->transaction(function () use ($id, $edit) {
        $egg = Egg::query()->findOrFail($id);
        if (isset($edit['egg'])) {
            $egg->forceFill($edit['egg'])->save();
        }
        foreach ($edit['variables'] ?? [] as $env => $fields) {
            $variable = $egg->variables()->where('env_variable', $env)->first();
            if ($fields === null) {
                $variable?->delete();
            } elseif ($variable !== null) {
                $variable->forceFill($fields)->save();
            } else {
                Pterodactyl\Models\EggVariable::query()->forceCreate(['egg_id' => $egg->id, 'env_variable' => $env] + $fields);
            }
        }
    });
}

if (PHP_SAPI === 'cli') {
    $usage = "usage: php ptero_api.php setup | import NEST FILE... | update EGG FILE | edit EGG JSON (or serve it with php -S)\n";
    try {
        switch ($argv[1] ?? '') {
            case 'setup':
                eggcat_ptero_setup(json_decode(file_get_contents(getenv('EGGCAT_API_KEYS')), true)['keys'] ?? []);
                break;
            case 'import':
                // EggShareController::import: Admin -> Nests -> Import Egg, once per file (the
                // new eggs' ids, one a line).
                $importer = new Pterodactyl\Services\Eggs\Sharing\EggImporterService(Capsule::connection(), new Pterodactyl\Services\Eggs\EggParserService());
                foreach (array_slice($argv, 3) as $path) {
                    try {
                        echo $importer->handle(eggcat_ptero_upload($path), (int) $argv[2])->id, "\n";
                    } catch (Throwable $e) {
                        throw new RuntimeException("$path: " . get_class($e) . ': ' . $e->getMessage(), 0, $e);
                    }
                }
                break;
            case 'update':
                // EggShareController::update: the egg's page, Egg File, Update Egg.
                $updater = new Pterodactyl\Services\Eggs\Sharing\EggUpdateImporterService(Capsule::connection(), new Pterodactyl\Services\Eggs\EggParserService());
                echo $updater->handle(Egg::query()->findOrFail((int) $argv[2]), eggcat_ptero_upload($argv[3]))->id, "\n";
                break;
            case 'edit':
                eggcat_ptero_edit((int) $argv[2], json_decode($argv[3], true, 512, JSON_THROW_ON_ERROR));
                break;
            default:
                fwrite(STDERR, $usage);
                exit(2);
        }
    } catch (Throwable $e) {
        fwrite(STDERR, get_class($e) . ': ' . $e->getMessage() . "\n");
        exit(1);
    }
    exit(0);
}

$headers = array_change_key_case(getallheaders(), CASE_LOWER);
[$status, $out, $text] = eggcat_ptero_handle($_SERVER['REQUEST_METHOD'], $_SERVER['REQUEST_URI'], $headers, $_SERVER['HTTP_HOST'] ?? '127.0.0.1');
http_response_code($status);
foreach ($out as $name => $value) {
    header("$name: $value");
}
echo $_SERVER['REQUEST_METHOD'] === 'HEAD' ? '' : $text;
