<?php
// Pterodactyl's `Nest` model, which its importer loads the target nest through (a stand-in:
// panels-src holds only the egg models). Loaded after the real `Model` it extends. Its resource
// name and `servers` are for the application API harness (ptero_api.php: NestTransformer's and
// EggTransformer's includes), as app/Models/Nest.php has them at the pinned commit.

namespace Pterodactyl\Models {
    class Nest extends Model {
        public const RESOURCE_NAME = 'nest';
        protected $table = 'nests';
        public static array $validationRules = [];
        public function eggs() { return $this->hasMany(Egg::class); }
        public function servers() { return $this->hasMany(Server::class); }
    }
}
