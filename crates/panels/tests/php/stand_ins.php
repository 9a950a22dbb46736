<?php
// Stand-ins for the few framework and panel files the import path names and panels-src does
// not hold (see boot.php). Each says which file it stands for.

namespace Ramsey\Uuid {
    final class Uuid {
        public static function uuid4(): self { return new self(); }
        public function toString(): string {
            $h = bin2hex(random_bytes(16));
            return sprintf('%s-%s-4%s-a%s-%s', substr($h, 0, 8), substr($h, 8, 4), substr($h, 13, 3), substr($h, 17, 3), substr($h, 20, 12));
        }
    }
}

namespace App\Contracts {
    interface Validatable {}
}

namespace App\Exceptions\Service {
    class InvalidFileUploadException extends \Exception {}
}

namespace App\Traits {
    // pelican-dev/panel app/Traits/HasValidation.php with app/Observers/ValidationObserver.php:
    // the model's rules checked against its attributes (casts applied) before every save.
    trait HasValidation {
        public static function bootHasValidation(): void {
            static::saving(function ($model) { $model->validate(); });
        }
        // Laravel 11 reads a model's casts() method; Laravel 8 only $casts.
        public function initializeHasValidation(): void {
            if (method_exists($this, 'casts')) {
                $this->mergeCasts($this->casts());
            }
        }
        public static function getRules(): array { return static::$validationRules; }
        public function validate(): void {
            // Attributes that passed once pass again (a test's speed: re-imports validate the
            // same attributes, and Laravel 8's validator costs a millisecond a model). The
            // verdict depends on the attributes the rules name and nothing else here: the rules'
            // one lookup, `exists:eggs,id`, is on the egg the importer saved before its
            // variables (and on `config_from`, which it sets to null).
            // The attributes given to the validator are those the rules name (Pelican gives it
            // them all, casts applied: the others, such as the timestamps, which Carbon makes
            // slow to cast, cannot change its verdict).
            static $passed = [];
            $named = array_flip(array_map(fn ($k) => explode('.', $k)[0], array_keys(static::getRules())));
            $data = $this->addCastAttributesToArray(array_intersect_key($this->getAttributes(), $named), $this->getMutatedAttributes());
            $key = static::class . md5(serialize($data));
            if (isset($passed[$key])) {
                return;
            }
            $v = \Illuminate\Container\Container::getInstance()
                ->make(\Illuminate\Validation\Factory::class)
                ->make($data, static::getRules());
            if (!$v->passes()) {
                throw new \Illuminate\Validation\ValidationException($v);
            }
            $passed[$key] = true;
        }
    }
}

namespace App\Models\Traits {
    // pelican-dev/panel app/Models/Traits/HasIcon.php: png, jpg (jpeg) and webp are kept under
    // the egg's uuid; any other type throws (and the importer reports and drops it).
    trait HasIcon {
        public static array $iconFormats = ['png' => 'image/png', 'jpg' => 'image/jpeg', 'webp' => 'image/webp'];
        public static function getIconStoragePath(): string { return 'icons/' . static::RESOURCE_NAME; }
        public function writeIcon(string $extension, string $data): string {
            $ext = match (strtolower($extension)) { 'jpeg', 'jpg' => 'jpg', 'png' => 'png', 'webp' => 'webp', default => null };
            if ($ext === null) { throw new \Exception("unknown icon extension $extension"); }
            $disk = \Illuminate\Support\Facades\Storage::disk('public');
            foreach (['png', 'jpg', 'jpeg', 'webp', 'svg'] as $other) {
                $disk->delete(static::getIconStoragePath() . "/$this->uuid.$other");
            }
            $disk->put($name = static::getIconStoragePath() . "/$this->uuid.$ext", $data);
            return $name;
        }
    }
}

namespace Pterodactyl\Exceptions\Service {
    class InvalidFileUploadException extends \Exception {}
}

namespace Pterodactyl\Exceptions\Model {
    class DataValidationException extends \Exception {
        public function __construct(public $validator, $model) {
            parent::__construct(json_encode($validator->errors()->toArray()));
        }
    }
}
