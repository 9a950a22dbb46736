<?php
// Reads every NNNN.yaml / NNNN.json that the Rust test wrote, with the parsers Pelican uses
// (Symfony's Yaml::parse, json_decode assoc), and compares each with the value the panel's export
// has (NNNN.want-yaml / NNNN.want-json), as the update check does: md5(json_encode(...)).
// Usage: php compare.php DIR AUTOLOAD
require $argv[2];
use Symfony\Component\Yaml\Yaml;

$dir = $argv[1];
$bad = 0;
$n = 0;
foreach (glob("$dir/*.name") as $nameFile) {
    $base = substr($nameFile, 0, -5);
    $name = file_get_contents($nameFile);
    $pairs = [
        'yaml' => [fn () => Yaml::parse(file_get_contents("$base.yaml")), "$base.want-yaml"],
        'json' => [fn () => json_decode(file_get_contents("$base.json"), true, 512, JSON_THROW_ON_ERROR), "$base.want-json"],
    ];
    foreach ($pairs as $format => [$read, $wantFile]) {
        try {
            $got = $read();
        } catch (Throwable $e) {
            echo "$name ($format): does not parse: ", $e->getMessage(), "\n";
            $bad++;
            continue;
        }
        $want = json_decode(file_get_contents($wantFile), true, 512, JSON_THROW_ON_ERROR);
        unset($got['exported_at'], $want['exported_at']);
        if (md5(json_encode($got)) !== md5(json_encode($want))) {
            echo "$name ($format): differs\n  got:  ", json_encode($got), "\n  want: ", json_encode($want), "\n";
            $bad++;
        }
    }
    $n++;
}
echo "compared $n eggs, $bad differences\n";
exit($bad === 0 ? 0 : 1);
