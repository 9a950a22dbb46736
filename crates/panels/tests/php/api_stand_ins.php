<?php
// Stand-ins for the few classes of Pelican's application API that Debian lacks (Fractal, Sanctum,
// webmozart/assert) or panels-src does not hold (the User model), each doing only what the egg
// routes need of it, so that Pelican's own AdminAcl, transformers and serializer
// (../shared/panels-src/pelican-api) run unchanged on top (api.php).

namespace League\Fractal {
    // league/fractal's base of the transformers (0.20, what Pelican's composer.lock pins is not
    // in panels-src): what Pelican's include methods call of it, `collection()` and `null()`,
    // which only make the resources, and `getAvailableIncludes()`, which api.php's Scope reads.
    abstract class TransformerAbstract
    {
        public function getAvailableIncludes(): array
        {
            return $this->availableIncludes;
        }

        protected function collection($data, $transformer, ?string $resourceKey = null): Resource\Collection
        {
            return new Resource\Collection($data, $transformer, $resourceKey);
        }

        protected function null(): Resource\NullResource
        {
            return new Resource\NullResource();
        }
    }
}

namespace League\Fractal\Resource {
    // league/fractal's resources: the data, its transformer and its key (`object` in the
    // envelope); a NullResource is serialized by the serializer's `null()`.
    final class Collection
    {
        public function __construct(private $data, private $transformer, private ?string $resourceKey) {}
        public function getData() { return $this->data; }
        public function getTransformer() { return $this->transformer; }
        public function getResourceKey(): ?string { return $this->resourceKey; }
    }

    final class NullResource
    {
    }
}

namespace Webmozart\Assert {
    // webmozart/assert, which BaseTransformer::makeTransformer calls: the one assertion it uses.
    final class Assert
    {
        public static function subclassOf($value, string $class): void
        {
            if (!is_subclass_of($value, $class)) {
                throw new \InvalidArgumentException("Expected a sub-class of $class. Got: " . (is_string($value) ? $value : get_debug_type($value)));
            }
        }
    }
}

namespace League\Fractal\Serializer {
    // league/fractal's ArraySerializer: PanelSerializer overrides every method the envelope
    // uses (item, collection, null, mergeIncludes).
    class ArraySerializer
    {
    }
}

namespace App\Models {
    /**
     * Pelican's application API key (app/Models/ApiKey.php at the pinned commit), without
     * Sanctum's PersonalAccessToken base: its key types, identifier length, `getPermission`
     * and `findToken` (the identifier is the token's first 16 characters, the secret the rest),
     * over the keys the test hands the harness (EGGCAT_API_KEYS, a JSON file) instead of the
     * `api_keys` table: `[{"identifier", "token", "key_type", "permissions": {resource: bits},
     * "user": {"uuid", "admin"}}]`.
     */
    class ApiKey
    {
        public const RESOURCE_NAME = 'api_key';
        public const TYPE_NONE = 0;
        public const TYPE_ACCOUNT = 1;
        public const TYPE_APPLICATION = 2;
        public const IDENTIFIER_LENGTH = 16;
        public const KEY_LENGTH = 32;

        public string $identifier;
        public string $token;
        public int $key_type;
        public array $permissions;
        public array $user;

        public function getPermission(string $resource): int
        {
            return $this->permissions[$resource] ?? \App\Services\Acl\Api\AdminAcl::NONE;
        }

        public static function findToken($token): ?self
        {
            $identifier = substr($token, 0, self::IDENTIFIER_LENGTH);
            foreach (json_decode(file_get_contents(getenv('EGGCAT_API_KEYS')), true)['keys'] as $row) {
                if ($row['identifier'] === $identifier && $row['token'] === substr($token, strlen($identifier))) {
                    $key = new self();
                    foreach ($row as $field => $value) {
                        $key->$field = $value;
                    }
                    return $key;
                }
            }
            return null;
        }
    }
}

namespace App\Models {
    // Pelican's User model (app/Models/User.php, not in panels-src) as two data migrations of
    // `users` query it (2017_01_12_135449 reads every user, 2024_08_01_114538 the root admins):
    // on an empty table when they run, so a model on `users` is all they need.
    class User extends \Illuminate\Database\Eloquent\Model
    {
    }
}

namespace {
    /**
     * The user a request is made by, as BaseTransformer::authorize asks it (Pelican's User with
     * Sanctum's HasApiTokens): the key the request came with, and whether the user is a root
     * admin (the `root_admin` the test gives the key's user, which Pelican reads from its roles).
     */
    final class EggcatApiUser
    {
        public function __construct(private App\Models\ApiKey $key) {}
        public function currentAccessToken(): App\Models\ApiKey { return $this->key; }
        public function isRootAdmin(): bool { return (bool) ($this->key->user['root_admin'] ?? false); }
    }

    if (!function_exists('str')) {
        // Laravel 9's `str()` helper (Illuminate/Support/helpers.php), which Egg::getKebabName
        // calls for the export's file name; Debian's Laravel 8 has `Str::of`, its body.
        function str($string = null)
        {
            return Illuminate\Support\Str::of($string ?? '');
        }
    }
}
