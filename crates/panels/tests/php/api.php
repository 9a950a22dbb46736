<?php
// Pelican's application API for eggs, on loopback, for the tests of `eggcat panel` (issue 37,
// section 5): `php -S 127.0.0.1:PORT api.php` serves it; `php api.php setup` makes its tables
// first (Pelican's migrations: the eggs' and the servers', migrations.php) and, with
// EGGCAT_API_FIXTURE=1, the egg of Pelican's own API fixture
// (tests/Integration/Api/Fixtures/BuildsTestFixture.php), with EGGCAT_API_SERVERS=1 as well the
// fixture's server and what it stands on (api_servers.php); `php api.php add-server EGG NAME
// [ENV=VALUE ...]` then puts another server of an egg on the panel.
//
// Environment: EGGCAT_PANELS_SRC (../shared/panels-src), EGGCAT_DB (boot.php; SQLite must be a
// file here: each request is a run of this script), EGGCAT_API_KEYS (the keys, api_stand_ins.php,
// `rate_limit`, requests per window per user, Pelican's default 256, and `rate_window`, the
// window in seconds, Laravel's minute unless a test makes it shorter) and EGGCAT_API_STATE (a
// folder for the rate limiter's counts and the `public` disk, where the eggs' icons are kept).
//
// The data path is Pelican's own code, run unchanged: EggImporterService::fromContent (import),
// EggExporterService::handle (export), the Egg model, and from ../shared/panels-src/pelican-api
// AdminAcl::check, EggTransformer::transform (with BaseTransformer) and PanelSerializer (the
// `{"object", "attributes"}` envelope), with EggTransformer's includes (`servers`, `variables`:
// EggVariableTransformer, and api_servers.php's ServerTransformer), on the stand-ins of
// api_stand_ins.php. What is written here, from the files named at each step, is the HTTP layer
// Laravel, Sanctum and Fractal give Pelican: the routes (routes/api-application.php: index, view,
// export, import, delete by id and by uuid), the middleware in the order Laravel runs them
// (bootstrap/app.php's `api` and `application-api` groups with RouteServiceProvider's
// `throttle:api.application`, sorted by Laravel's middleware priority: authentication, then the
// throttle, then the route's bindings), the requests' permissions
// (app/Http/Requests/Api/Application/Eggs/*: read for index, view and export, write for import;
// delete uses GetEggRequest, read), the includes asked for (ApplicationApiController's `include`,
// served as league/fractal's Scope does: see eggcat_api_transform) and the error bodies
// (app/Exceptions/Handler.php: `{"errors": [{"code", "status", "detail"}]}`, with `meta` for
// validation errors). Validation messages are the validator's keys (`validation.in`): Debian's
// Laravel has no language files.

require __DIR__ . '/boot.php';
require __DIR__ . '/pelican.php';
require __DIR__ . '/api_stand_ins.php';
foreach ([
    'pelican-api/app/Services/Acl/Api/AdminAcl.php',
    'pelican-api/app/Transformers/Api/Application/BaseTransformer.php',
    'pelican-api/app/Transformers/Api/Application/EggTransformer.php',
    'pelican-api/app/Transformers/Api/Application/EggVariableTransformer.php',
    'pelican-api/app/Extensions/League/Fractal/Serializers/PanelSerializer.php',
] as $file) {
    require_once "$src/$file";
}
require __DIR__ . '/api_servers.php';

use App\Enums\EggFormat;
use App\Extensions\League\Fractal\Serializers\PanelSerializer;
use App\Models\ApiKey;
use App\Models\Egg;
use App\Services\Acl\Api\AdminAcl;
use App\Transformers\Api\Application\BaseTransformer;
use App\Transformers\Api\Application\EggTransformer;
use League\Fractal\Resource\Collection;
use League\Fractal\Resource\NullResource;

/** An HTTP error as Pelican's Handler renders it: the exception's class name, status, detail. */
final class EggcatHttpError extends Exception
{
    public function __construct(
        public int $status,
        public string $class,
        string $detail,
        public array $headers = [],
        public ?array $body = null,
    ) {
        parent::__construct($detail);
    }

    /** Handler::exceptionToArray (app.debug off). */
    public function body(): array
    {
        return $this->body ?? ['errors' => [[
            'code' => $this->class,
            'status' => strval($this->status),
            'detail' => $this->getMessage(),
        ]]];
    }
}

/** Handler::invalidJson: one error per message, with the field and the rule. */
function eggcat_api_invalid(Illuminate\Validation\ValidationException $e): EggcatHttpError
{
    $errors = [];
    $failed = $e->validator->failed();
    foreach ($e->errors() as $field => $messages) {
        $rules = array_map(fn ($r) => Illuminate\Support\Str::snake($r), array_keys($failed[$field] ?? []));
        foreach (array_values($messages) as $i => $message) {
            $errors[] = [
                'code' => 'ValidationException',
                'status' => '422',
                'detail' => $message,
                'meta' => ['source_field' => $field, 'rule' => $rules[$i] ?? null],
            ];
        }
    }
    return new EggcatHttpError(422, 'ValidationException', 'The given data was invalid.', [], ['errors' => $errors]);
}

/**
 * ThrottleRequests with RouteServiceProvider's `api.application` limiter: `rate_limit`
 * requests a minute per user (its uuid); the headers Laravel sets.
 */
function eggcat_api_throttle(array $user, int $limit, int $window = 60): array
{
    $dir = getenv('EGGCAT_API_STATE') ?: sys_get_temp_dir();
    $file = fopen("$dir/throttle-" . md5($user['uuid']), 'c+');
    flock($file, LOCK_EX);
    $now = time();
    $hits = array_values(array_filter(json_decode(stream_get_contents($file) ?: '[]', true), fn ($t) => $t > $now - $window));
    if (count($hits) >= $limit) {
        flock($file, LOCK_UN);
        $retry = max(1, $hits[0] + $window - $now);
        // Counted for the tests (how many requests the limit turned away).
        file_put_contents("$dir/throttled.log", "$now\n", FILE_APPEND);
        throw new EggcatHttpError(429, 'ThrottleRequestsException', 'Too Many Attempts.', [
            'Retry-After' => $retry, 'X-RateLimit-Limit' => $limit, 'X-RateLimit-Remaining' => 0,
        ]);
    }
    $hits[] = $now;
    ftruncate($file, 0);
    rewind($file);
    fwrite($file, json_encode($hits));
    flock($file, LOCK_UN);
    return ['X-RateLimit-Limit' => $limit, 'X-RateLimit-Remaining' => $limit - count($hits)];
}

/** The egg a route names (`{egg:id}`, `{egg:uuid}`), or the 404 Handler makes of the miss. */
function eggcat_api_egg(string $column, string $value): Egg
{
    $egg = $column === 'id' && !ctype_digit($value) ? null : Egg::query()->where($column, $value)->first();
    return $egg ?? throw new EggcatHttpError(404, 'NotFoundHttpException', 'The requested resource could not be found on the server.');
}

/**
 * The includes a request asks for (ApplicationApiController: `include`, a list, or words
 * separated by commas, each trimmed, the empty ones dropped), by name: Fractal's Manager takes
 * `name:modifier(...)` as `name` (Pelican's include methods read no modifier). A nested include
 * (`servers.user`) would run the included transformer's own includes, which the harness does
 * not have: it is refused (a 500, logged) rather than answered without them.
 */
function eggcat_api_includes(array $query): array
{
    $input = $query['include'] ?? [];
    $names = [];
    foreach (is_array($input) ? $input : explode(',', $input) as $include) {
        $name = explode(':', trim((string) $include))[0];
        if (str_contains($name, '.')) {
            throw new RuntimeException("include=$name: nested includes are not served by the harness");
        }
        if ($name !== '') {
            $names[] = $name;
        }
    }
    return $names;
}

/**
 * One model through its transformer with the includes asked for, as league/fractal's Scope runs
 * a transformer (Fractal is not in Debian; what it does here is what Pelican's snapshots show of
 * it): the model's `transform()`, then each include the transformer makes available and the
 * request asks for, in the transformer's order (EggTransformer: servers, config, script,
 * variables), through its `include<Name>` method (`config` and `script` have none: PHP's error,
 * a 500, as Pelican's own EggFixtureTest says). The resource that method returns is serialized
 * by PanelSerializer: a Collection as `collection()` of its items, each through its own
 * transformer (no includes of its own: see eggcat_api_includes), a NullResource (the key may not
 * read the included resource: BaseTransformer::authorize) as `null()`. PanelSerializer's
 * `mergeIncludes` puts them under `relationships`, beside the attributes.
 */
function eggcat_api_transform(BaseTransformer $transformer, $model, array $includes): array
{
    $serializer = new PanelSerializer();
    $data = $transformer->transform($model);
    $included = [];
    foreach ($transformer->getAvailableIncludes() as $name) {
        if (!in_array($name, $includes, true)) {
            continue;
        }
        $method = 'include' . str_replace(' ', '', ucwords(str_replace(['_', '-'], ' ', $name)));
        $resource = $transformer->$method($model);
        $included[$name] = match (true) {
            $resource instanceof Collection => $serializer->collection(
                $resource->getResourceKey(),
                array_map(fn ($item) => eggcat_api_transform($resource->getTransformer(), $item, []), [...$resource->getData()]),
            ),
            $resource instanceof NullResource => $serializer->null(),
        };
    }
    return $included === [] ? $data : $serializer->mergeIncludes($data, $included);
}

/**
 * The request as the transformers see it (BaseTransformer::fromRequest): its user, who holds
 * the key it came with (api_stand_ins.php's EggcatApiUser).
 */
function eggcat_api_request(ApiKey $key): Illuminate\Http\Request
{
    $request = new Illuminate\Http\Request();
    $request->setUserResolver(fn () => new EggcatApiUser($key));
    return $request;
}

/** One egg in Fractal's item envelope: Pelican's transformer and serializer. */
function eggcat_api_item(Egg $egg, EggTransformer $transformer, array $includes): array
{
    return (new PanelSerializer())->item(Egg::RESOURCE_NAME, eggcat_api_transform($transformer, $egg, $includes));
}

/**
 * Answers one request: [status, headers, body]. `$headers` keys are lowercase.
 */
function eggcat_api_handle(string $method, string $uri, array $headers, string $body): array
{
    $path = '/' . trim(parse_url($uri, PHP_URL_PATH) ?? '', '/');
    parse_str(parse_url($uri, PHP_URL_QUERY) ?? '', $query);
    $json = fn (int $status, array $data, array $extra = []) => [$status, ['Content-Type' => 'application/json'] + $extra, json_encode($data)];
    try {
        // The routes (routes/api-application.php under RouteServiceProvider's prefix).
        $routes = [
            ['GET', '#^/api/application/eggs$#', 'index', AdminAcl::READ, null],
            ['GET', '#^/api/application/eggs/([^/]+)$#', 'view', AdminAcl::READ, 'id'],
            ['GET', '#^/api/application/eggs/([^/]+)/export$#', 'export', AdminAcl::READ, 'id'],
            ['POST', '#^/api/application/eggs/import$#', 'import', AdminAcl::WRITE, null],
            ['DELETE', '#^/api/application/eggs/uuid/([^/]+)$#', 'delete', AdminAcl::READ, 'uuid'],
            ['DELETE', '#^/api/application/eggs/([^/]+)$#', 'delete', AdminAcl::READ, 'id'],
        ];
        $match = null;
        $allowed = [];
        foreach ($routes as $route) {
            if (preg_match($route[1], $path, $m)) {
                if ($route[0] === $method || ($method === 'HEAD' && $route[0] === 'GET')) {
                    $match = [$route, $m[1] ?? null];
                    break;
                }
                $allowed[] = $route[0];
            }
        }
        $route = ltrim($path, '/');
        if ($match === null && $allowed) {
            throw new EggcatHttpError(405, 'MethodNotAllowedHttpException', "The $method method is not supported for route $route. Supported methods: " . implode(', ', array_unique($allowed)) . '.');
        }
        if ($match === null) {
            throw new EggcatHttpError(404, 'NotFoundHttpException', "The route $route could not be found.");
        }
        [[, , $action, $permission, $column], $parameter] = $match;
        // auth:sanctum: the bearer token, as ApiKey::findToken reads it.
        $bearer = preg_match('/^Bearer\s+(\S+)$/i', $headers['authorization'] ?? '', $b) ? $b[1] : null;
        $key = $bearer === null ? null : ApiKey::findToken($bearer);
        if ($key === null) {
            $accept = $headers['accept'] ?? '';
            if (!str_contains($accept, '/json') && !str_contains($accept, '+json')) {
                // Handler::unauthenticated for a request that does not ask for JSON.
                return [302, ['Location' => '/login'], ''];
            }
            throw new EggcatHttpError(401, 'AuthenticationException', 'Unauthenticated.');
        }
        // IsValidJson.
        if (str_contains($headers['content-type'] ?? '', 'json') && $body !== '') {
            try {
                json_decode($body, true, 512, JSON_THROW_ON_ERROR);
            } catch (JsonException $e) {
                throw new EggcatHttpError(400, 'BadRequestHttpException', 'The JSON data passed in the request appears to be malformed: ' . $e->getMessage());
            }
        }
        $config = json_decode(file_get_contents(getenv('EGGCAT_API_KEYS')), true);
        $limits = eggcat_api_throttle($key->user, $config['rate_limit'] ?? 256, $config['rate_window'] ?? 60);
        // SubstituteBindings.
        $egg = $column === null ? null : eggcat_api_egg($column, $parameter);
        // AuthenticateApplicationUser.
        if (!($key->user['admin'] ?? false)) {
            throw new EggcatHttpError(403, 'AccessDeniedHttpException', 'This account does not have permission to access the API.');
        }
        // ApplicationApiRequest::authorize.
        $rootAccount = ($key->user['root_admin'] ?? false) && $key->key_type === ApiKey::TYPE_ACCOUNT;
        if (!$rootAccount && !AdminAcl::check($key, Egg::RESOURCE_NAME, $permission)) {
            throw new EggcatHttpError(403, 'AuthorizationException', 'This action is unauthorized.');
        }
        // The controller (EggController), whose constructor (ApplicationApiController) parses
        // the includes, for every action.
        $includes = eggcat_api_includes($query);
        $transformer = EggTransformer::fromRequest(eggcat_api_request($key));
        switch ($action) {
            case 'index':
                $items = Egg::all()->map(fn ($e) => eggcat_api_transform($transformer, $e, $includes))->all();
                return $json(200, (new PanelSerializer())->collection(Egg::RESOURCE_NAME, $items), $limits);
            case 'view':
                return $json(200, eggcat_api_item($egg, $transformer, $includes), $limits);
            case 'export':
                // ExportEggRequest: `format` nullable|string|in:yaml,json.
                $validator = app('validator')->make($query, ['format' => 'nullable|string|in:yaml,json']);
                if ($validator->fails()) {
                    throw eggcat_api_invalid(new Illuminate\Validation\ValidationException($validator));
                }
                $format = EggFormat::tryFrom($query['format'] ?? '') ?? EggFormat::YAML;
                $text = (new App\Services\Eggs\Sharing\EggExporterService())->handle($egg->id, $format);
                return [200, [
                    'Content-Type' => 'application/' . $format->value,
                    'Content-Disposition' => 'attachment; filename=egg-' . $egg->getKebabName() . '.' . $format->value,
                ] + $limits, $text];
            case 'import':
                $importer = new App\Services\Eggs\Sharing\EggImporterService(Illuminate\Database\Capsule\Manager::connection());
                $imported = $importer->fromContent($body);
                return $json(201, eggcat_api_item($imported, $transformer, $includes), $limits);
            case 'delete':
                $egg->delete();
                return [204, $limits, ''];
        }
    } catch (EggcatHttpError $e) {
        return $json($e->status, $e->body(), $e->headers);
    } catch (Illuminate\Validation\ValidationException $e) {
        $e = eggcat_api_invalid($e);
        return $json($e->status, $e->body());
    } catch (Throwable $e) {
        // Handler::exceptionToArray for any other exception, app.debug off; the harness says
        // on stderr what it was (the test's log).
        error_log('api.php: ' . get_class($e) . ': ' . $e->getMessage() . ' at ' . $e->getFile() . ':' . $e->getLine());
        return $json(500, ['errors' => [[
            'code' => class_basename($e),
            'status' => '500',
            'detail' => 'An unexpected error was encountered while processing this request, please try again.',
        ]]]);
    }
}

if (!function_exists('app')) {
    function app(string $name) { return Illuminate\Container\Container::getInstance()->make($name); }
}

/**
 * The egg of Pelican's API fixture (BuildsTestFixture::buildTestFixture: the egg with id 100
 * and its two variables, the attributes it pins, over EggFactory's defaults at the pinned
 * commit for the rest: `config_files`, `config_startup`, `config_logs` and `config_stop` all
 * `{}`), stored through Pelican's Egg model.
 */
function eggcat_api_fixture(): void
{
    $egg = Egg::query()->forceCreate([
        'id' => 100,
        'uuid' => '00000000-0000-4000-8000-000000000300',
        'name' => 'Fixture Egg',
        'author' => 'egg@fixture.test',
        'description' => 'A pinned egg for the API test fixture suite.',
        'docker_images' => ['Java 21' => 'ghcr.io/fixture/java:21'],
        'startup_commands' => ['java -jar server.jar'],
        'config_logs' => '{}',
        'config_startup' => '{}',
        'config_stop' => '{}',
        'config_files' => '{}',
    ]);
    foreach ([
        [100, 'Server Jar', 'The jar file to run.', 'SERVER_JARFILE', 'server.jar', true],
        [101, 'Hidden Token', 'An internal variable users cannot see.', 'HIDDEN_TOKEN', 'internal', false],
    ] as [$id, $name, $description, $env, $default, $visible]) {
        App\Models\EggVariable::query()->forceCreate([
            'id' => $id, 'egg_id' => $egg->id, 'name' => $name, 'description' => $description,
            'env_variable' => $env, 'default_value' => $default, 'user_viewable' => $visible,
            'user_editable' => $visible, 'rules' => ['required', 'string'],
        ]);
    }
}

if (PHP_SAPI === 'cli') {
    $command = $argv[1] ?? '';
    if ($command === 'setup') {
        // The tables, and the fixture when asked. An SQLite file is written without waiting
        // for the disk (a test's database, made anew each run): the migrations then take a
        // fraction of a second instead of several.
        $db = Illuminate\Database\Capsule\Manager::connection();
        if ($db->getDriverName() === 'sqlite') {
            $db->statement('PRAGMA synchronous = OFF');
        }
        eggcat_migrate([], array_merge(EGGCAT_EGG_TABLES, EGGCAT_SERVER_TABLES));
        $fixture = getenv('EGGCAT_API_FIXTURE') === '1';
        $servers = getenv('EGGCAT_API_SERVERS') === '1';
        if ($servers && !$fixture) {
            fwrite(STDERR, "api.php setup: EGGCAT_API_SERVERS=1 needs EGGCAT_API_FIXTURE=1 (the fixture's server is of the fixture's egg)\n");
            exit(2);
        }
        if ($fixture) {
            eggcat_api_fixture();
        }
        if ($servers) {
            eggcat_api_fixture_servers();
        }
        exit(0);
    }
    if ($command === 'add-server' && count($argv) >= 4 && ctype_digit($argv[2])) {
        $values = [];
        foreach (array_slice($argv, 4) as $pair) {
            [$env, $value] = explode('=', $pair, 2) + [1 => ''];
            $values[$env] = $value;
        }
        echo json_encode(eggcat_api_add_server((int) $argv[2], $argv[3], $values)), "\n";
        exit(0);
    }
    fwrite(STDERR, "usage: php api.php setup | php api.php add-server EGG NAME [ENV=VALUE ...] (or serve it with php -S)\n");
    exit(2);
}

// The `public` disk, where Pelican keeps the eggs' icons (EggImporterService saves a file's
// icon there, EggExporterService reads it back): boot.php's disk is in memory, and each
// request is a run of this script, so it is kept in the state folder between requests.
$disk = Illuminate\Support\Facades\Storage::disk('public');
$icons = (getenv('EGGCAT_API_STATE') ?: sys_get_temp_dir()) . '/public-disk.json';
$disk->files = is_file($icons) ? array_map('base64_decode', json_decode(file_get_contents($icons), true)) : [];
$before = $disk->files;
$headers = array_change_key_case(getallheaders(), CASE_LOWER);
[$status, $out, $text] = eggcat_api_handle($_SERVER['REQUEST_METHOD'], $_SERVER['REQUEST_URI'], $headers, file_get_contents('php://input'));
if ($disk->files !== $before) {
    file_put_contents("$icons.tmp", json_encode(array_map('base64_encode', $disk->files)));
    rename("$icons.tmp", $icons);
}
http_response_code($status);
foreach ($out as $name => $value) {
    header("$name: $value");
}
echo $text;
