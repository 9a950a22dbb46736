<?php
// Stand-ins for the few classes of Pelican's application API that Debian lacks (Fractal, Sanctum),
// each doing only what the egg routes need of it, so that Pelican's own AdminAcl, transformers
// and serializer (../shared/panels-src/pelican-api) run unchanged on top (api.php).

namespace League\Fractal {
    // league/fractal's base of the transformers: the egg routes without `include` call none of
    // its methods; the includes (servers, variables) are not served by the harness.
    abstract class TransformerAbstract
    {
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

namespace {
    if (!function_exists('str')) {
        // Laravel 9's `str()` helper (Illuminate/Support/helpers.php), which Egg::getKebabName
        // calls for the export's file name; Debian's Laravel 8 has `Str::of`, its body.
        function str($string = null)
        {
            return Illuminate\Support\Str::of($string ?? '');
        }
    }
}
