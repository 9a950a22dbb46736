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
            $v = \Illuminate\Container\Container::getInstance()
                ->make(\Illuminate\Validation\Factory::class)
                ->make($this->addCastAttributesToArray($this->getAttributes(), $this->getMutatedAttributes()), static::getRules());
            if (!$v->passes()) {
                throw new \Illuminate\Validation\ValidationException($v);
            }
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
