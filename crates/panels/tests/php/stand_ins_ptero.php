<?php
// Pterodactyl's `Nest` model, which its importer loads the target nest through (a stand-in:
// panels-src holds only the egg models). Loaded after the real `Model` it extends.

namespace Pterodactyl\Models {
    class Nest extends Model {
        protected $table = 'nests';
        public static array $validationRules = [];
        public function eggs() { return $this->hasMany(Egg::class); }
    }
}
