<?php
// Stand-ins for the classes Pterodactyl's application API for nests and eggs names and Debian
// lacks (Fractal, Sanctum, Webmozart, the User and Server models), each doing only what those
// routes need of it, so that Pterodactyl's own AdminAcl, ApiKey, transformers and serializer
// (../shared/panels-src/pterodactyl-api) run unchanged on top (ptero_api.php). Fractal's are
// written from league/fractal 0.20.1 (the version Pterodactyl's composer.lock pins at the
// pinned commit): src/TransformerAbstract.php, src/Scope.php (toArray, fireTransformer,
// isRequested), src/Manager.php (parseIncludes, autoIncludeParents, the recursion limit) and
// src/Serializer/ArraySerializer.php (meta, paginator), which PterodactylSerializer extends.

namespace League\Fractal\Resource {
    /** Fractal's Item, Collection and NullResource: data, transformer, resource key. */
    abstract class ResourceAbstract
    {
        public ?array $paginator = null;

        public function __construct(public $data = null, public $transformer = null, public ?string $resourceKey = null)
        {
        }
    }
    class Item extends ResourceAbstract {}
    class Collection extends ResourceAbstract {}
    class NullResource extends ResourceAbstract {}
}

namespace League\Fractal {
    use League\Fractal\Resource\Collection;
    use League\Fractal\Resource\Item;
    use League\Fractal\Resource\NullResource;

    /** TransformerAbstract: the includes a transformer offers and the resources it makes. */
    abstract class TransformerAbstract
    {
        protected array $availableIncludes = [];
        protected array $defaultIncludes = [];

        public function getAvailableIncludes(): array { return $this->availableIncludes; }
        public function getDefaultIncludes(): array { return $this->defaultIncludes; }
        protected function item($data, $transformer, ?string $resourceKey = null): Item { return new Item($data, $transformer, $resourceKey); }
        protected function collection($data, $transformer, ?string $resourceKey = null): Collection { return new Collection($data, $transformer, $resourceKey); }
        protected function null(): NullResource { return new NullResource(); }
    }
}

namespace League\Fractal\Serializer {
    /**
     * ArraySerializer's `meta` and `paginator` (PterodactylSerializer overrides item,
     * collection, null and mergeIncludes). The paginator is given as the array
     * IlluminatePaginatorAdapter reads from Laravel's LengthAwarePaginator: total, count,
     * per_page, current_page, last_page and a `url` closure.
     */
    class ArraySerializer
    {
        public function meta(array $meta): array
        {
            return empty($meta) ? [] : ['meta' => $meta];
        }

        public function paginator(array $p): array
        {
            $pagination = [
                'total' => $p['total'],
                'count' => $p['count'],
                'per_page' => $p['per_page'],
                'current_page' => $p['current_page'],
                'total_pages' => $p['last_page'],
            ];
            $pagination['links'] = [];
            if ($p['current_page'] > 1) {
                $pagination['links']['previous'] = $p['url']($p['current_page'] - 1);
            }
            if ($p['current_page'] < $p['last_page']) {
                $pagination['links']['next'] = $p['url']($p['current_page'] + 1);
            }
            if (empty($pagination['links'])) {
                $pagination['links'] = (object) [];
            }
            return ['pagination' => $pagination];
        }
    }
}

namespace Webmozart\Assert {
    /** webmozart/assert's `subclassOf`, which BaseTransformer::makeTransformer calls. */
    final class Assert
    {
        public static function subclassOf($value, string $class): void
        {
            if (!is_subclass_of($value, $class)) {
                throw new \InvalidArgumentException("Expected a sub-class of $class");
            }
        }
    }
}

namespace Pterodactyl\Models {
    /**
     * The `servers` table's model, for the `servers` includes (Egg::servers, Nest::servers).
     * The harness has no servers: its table stays empty, so the includes are empty lists.
     */
    class Server extends Model
    {
        public const RESOURCE_NAME = 'server';
        protected $table = 'servers';
        public static array $validationRules = [];
    }

    /**
     * The user an application key belongs to (app/Models/User.php is not in panels-src): its
     * uuid (the throttle's key), `root_admin` (AuthenticateApplicationUser, BaseTransformer)
     * and the key it authenticated with (Sanctum's HasApiTokens::currentAccessToken).
     */
    final class User
    {
        public function __construct(public string $uuid, public bool $root_admin, private ApiKey $token) {}
        public function currentAccessToken(): ApiKey { return $this->token; }
    }
}

namespace {
    if (!function_exists('app')) {
        // Laravel's `app()` helper: the container, or a class made by it.
        function app(?string $name = null)
        {
            $c = Illuminate\Container\Container::getInstance();
            return $name === null ? $c : $c->make($name);
        }
    }
    if (!function_exists('decrypt')) {
        // Laravel's `decrypt()`, which ApiKey::findToken calls on the stored token: Laravel's
        // encrypter unserializes what it decrypts; the AES-256 step under APP_KEY is left out
        // (setup stores `base64_encode(serialize($secret))`, see eggcat_ptero_setup).
        function decrypt($value)
        {
            return unserialize(base64_decode($value));
        }
    }
}
