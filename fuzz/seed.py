#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets under fuzz/corpus/<target>/ (not committed).

Sources: the real eggs and READMEs of ../shared/upstream (when present, beside the checkout),
the demo's eggs (demo/upstream) and its published tree (crates/cli/tests/data/demo, for the
server's paths), the validate crate's test cases (crates/validate/tests/data), and the hostile
inputs of crates/validate/tests/hostile.rs, rebuilt here small. Each seed is named by the hash
of its bytes, so running this again adds nothing twice.

Usage: fuzz/seed.py [--no-shared] [ROOT]     --no-shared: leave ../shared out (CI's brief runs)
"""

import hashlib
import json
import os
import pathlib
import sys

ARGS = [a for a in sys.argv[1:] if a != "--no-shared"]
ROOT = pathlib.Path(ARGS[0] if ARGS else pathlib.Path(__file__).parent.parent)
SHARED = ROOT.parent / "shared" / "upstream"
if "--no-shared" in sys.argv:
    SHARED = ROOT / "no-shared-corpus"
CORPUS = ROOT / "fuzz" / "corpus"
MAX_SEED = 256 * 1024  # libFuzzer's inputs stay small; bigger real files add little


def put(target, data):
    if len(data) > MAX_SEED:
        return
    folder = CORPUS / target
    folder.mkdir(parents=True, exist_ok=True)
    (folder / hashlib.sha1(data).hexdigest()).write_bytes(data)


def files(root, suffixes):
    if not root.is_dir():
        return
    for dirpath, dirnames, names in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != ".git"]
        for name in sorted(names):
            if name.lower().endswith(suffixes):
                yield pathlib.Path(dirpath) / name


def hostile():
    """The refused files of crates/validate/tests/hostile.rs, small."""
    bomb = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
    for i in range(1, 10):
        bomb += f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]\n"
    return [
        ("json", b"\xef\xbb\xbf{}"),
        ("yaml", b'name: "\xff"\n'),
        ("json", b'{"a": }'),
        ("yaml", b"a: 1\na: 2\n"),
        ("json", b'{"a": 1, "a": 2}'),
        ("json", ("[" * 130 + "]" * 130).encode()),
        ("yaml", ("[" * 70 + "]" * 70).encode()),
        ("yaml", bomb.encode()),
        ("json", b"[1, 2]"),
        ("yaml", b"just text"),
        ("json", b""),
        ("json", b'{"meta": {"version": "PTDL_v2"}, "variables": [{"rules": "regex:/(a+)+$/"}]}'),
    ]


def main():
    eggs = []  # (syntax, bytes)
    for root in [SHARED, ROOT / "demo" / "upstream", ROOT / "crates" / "validate" / "tests" / "data"]:
        for path in files(root, (".json", ".yaml", ".yml")):
            eggs.append(("json" if path.suffix == ".json" else "yaml", path.read_bytes()))
    eggs += hostile()
    for syntax, data in eggs:
        pick = b"\x00" if syntax == "json" else b"\x01"
        put("egg_parse", pick + data)
        put("panels", pick + data)
        put("validate", pick + data)
        put("validate", b"\x02" + data)

    # Rules strings: every `rules` of a real egg's variables.
    for syntax, data in eggs:
        if syntax != "json":
            continue
        try:
            egg = json.loads(data)
        except (ValueError, UnicodeDecodeError):
            continue
        variables = egg.get("variables") if isinstance(egg, dict) else None
        for v in variables if isinstance(variables, list) else []:
            rules = v.get("rules") if isinstance(v, dict) else None
            if isinstance(rules, str):
                put("rules", rules.encode())
            elif isinstance(rules, list):
                put("rules", "|".join(r for r in rules if isinstance(r, str)).encode())
    for rules in ["required|string|max:20", "nullable|regex:/^[a-z]+$/i", "in:a,b,c|between:1,2",
                  "regex:#(a|b)#", "regex:{\\d+}x", "required_if:x,1|digits_between:1,5"]:
        put("rules", rules.encode())

    # READMEs, with each upstream.
    for root in [SHARED, ROOT / "demo" / "upstream"]:
        for i, path in enumerate(files(root, (".md",))):
            put("readme", bytes([i % 3]) + path.read_bytes())
    for hostile_md in [
        b"<script>alert(1)</script>", b'<a href="javascript:alert(1)">x</a>',
        b'<img src=x onerror=alert(1)>', b"[x](javascript:alert(1))", b"![x](data:text/html,hi)",
        b'<a href="&#106;avascript:alert(1)">x</a>', b"<iframe src=//x></iframe><form></form>",
        b"<details open ontoggle=alert(1)><summary>x</summary></details>",
    ]:
        put("readme", b"\x00" + hostile_md)

    # Requests: every published path of the demo, with each kind of header.
    demo = ROOT / "crates" / "cli" / "tests" / "data" / "demo"
    paths = ["/", "/healthz", "/readyz", "/metrics", "/api/v1/eggs", "/api/v1/eggs?fields=name",
             "/api/v1/openapi.json", "/status", "/eggs/demo-eggs-mumble", "/api/v1/eggs/nope",
             "/api/v1/eggs/demo-eggs-mumble", "/%2e%2e/etc/passwd", "*"]
    paths += ["/" + str(p.relative_to(demo)) for p in files(demo, ("",))]
    headers = ["", "Accept-Encoding: br, gzip;q=0.5, zstd\n", "Accept-Encoding: identity;q=0, *;q=0\n",
               'If-None-Match: "x", *\n', 'If-Match: ""\n', "If-Modified-Since: Sun, 23 Nov 2025 00:00:00 GMT\n",
               "If-Unmodified-Since: Thu, 01 Jan 1970 00:00:00 GMT\n", "Range: bytes=0-10\n",
               "Range: bytes=5-1, -3\n"]
    for i, path in enumerate(paths):
        method = ["GET", "HEAD", "OPTIONS", "POST"][i % 4] if i < 8 else "GET"
        put("server", f"{method} {path}\n{headers[i % len(headers)]}".encode())
        put("server", f"GET {path}\n{headers[(i + 3) % len(headers)]}".encode())

    # Config files: the demo's and the README's.
    put("config", (ROOT / "demo" / "eggcat.toml").read_bytes())
    readme = (ROOT / "README.md").read_text()
    for block in readme.split("```toml")[1:]:
        put("config", block.split("```")[0].encode())
    put("config", b'history_since = "2024-01-01"\n[publish]\nurl = "s3://b/p"\nconcurrency = 0\n')
    put("config", b'base_url = "https://u@x/"\nrefresh = "0s"\n[[source]]\nurl = "x"\n[[source]]\nurl = "x"\n')

    for folder in sorted(CORPUS.iterdir()):
        print(f"{folder.name}: {sum(1 for _ in folder.iterdir())} seeds")


if __name__ == "__main__":
    main()
