#!/usr/bin/env python3
"""The moving parts of bench/soak.sh: upstream commits, the consistency checker, the load's paths.

Subcommands (each prints one JSON object of figures on stdout when it ends):
  paths BASE OUT         writes the load's paths for bench/soak.lua, one per line, and beside
                         them OUT.json: for each path, whether the catalog published it and the
                         egg it belongs to (repository, file), as the first build's summary and
                         egg documents say; then requests each once (its figures name every path
                         that answered otherwise than they say)
  mutate REPOS SECONDS   commits to the upstream git repositories every few seconds until killed
                         (its figures list each egg file it removed, with when)
  check BASE SECONDS     checks until killed that what one build serves holds together
  memory PID SECONDS     samples the resident memory (VmRSS) of PID until killed
  judge PATHS_JSON MUTATE_JSON WRK_OUT START
                         names every path the load got 404 or 410 for, each with why it was
                         expected, or that it should exist (published, and its egg not removed
                         upstream, or not yet); exits 1 on one that should exist

The checker reads `_status.json` (the build id), `_summary.json`, a few listed eggs' documents
and import files and page, then `_status.json` again. When both status reads name the same build,
every request in between was answered by that build (builds only move forward), so each listed
egg must answer 200 with the name and `indexedAt` (the build that last changed it) the summary
gives for it: a document of another build,
a missing document or a 404/410 for a listed egg is a mixed snapshot. When the build moved in
between, the round proves nothing and is counted apart ("straddled").
"""

import http.client
import json
import os
import random
import re
import signal
import subprocess
import sys
import time

STOP = False


def _stop(*_):
    global STOP
    STOP = True


signal.signal(signal.SIGTERM, _stop)
signal.signal(signal.SIGINT, _stop)


def git(repo, *args):
    subprocess.run(
        ["git", "-c", "user.name=soak", "-c", "user.email=soak@localhost",
         "-c", "commit.gpgsign=false", "-C", repo, *args],
        check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def egg_files(repo):
    """The JSON egg files of a repository (a file with the egg's `meta` and `startup` keys)."""
    out = []
    for root, dirs, files in os.walk(repo):
        dirs[:] = [d for d in dirs if d != ".git"]
        for f in files:
            if f.endswith(".json"):
                p = os.path.join(root, f)
                try:
                    with open(p, encoding="utf-8") as fh:
                        doc = json.load(fh)
                except (OSError, ValueError):
                    continue
                if isinstance(doc, dict) and "startup" in doc and "name" in doc:
                    out.append(p)
    return out


def mutate(repos_dir, every):
    """Every `every` seconds one commit in a random repository: 70 % an egg's description
    changed, 15 % an egg added (a copy under a new name), 15 % an egg removed (one the soak
    added when there is one, else an upstream egg)."""
    rng = random.Random(18)
    repos = sorted(os.path.join(repos_dir, r) for r in os.listdir(repos_dir))
    files = {r: egg_files(r) for r in repos}
    added = {r: [] for r in repos}
    counts = {"changed": 0, "added": 0, "removed": 0}
    # Each egg file removed, as [repository, path in it, Unix time of the commit].
    removed = []
    n = 0
    while not STOP:
        time.sleep(every)
        if STOP:
            break
        n += 1
        repo = rng.choice([r for r in repos if files[r]])
        roll = rng.random()
        if roll < 0.70:
            path = rng.choice(files[repo])
            with open(path, encoding="utf-8") as fh:
                doc = json.load(fh)
            desc = re.sub(r" \[soak \d+\]$", "", doc.get("description") or "")
            doc["description"] = f"{desc} [soak {n}]"
            kind = "changed"
        elif roll < 0.85:
            src = rng.choice(files[repo])
            with open(src, encoding="utf-8") as fh:
                doc = json.load(fh)
            doc["name"] = f"{doc['name']} soak {n}"
            doc.pop("uuid", None)
            path = os.path.join(os.path.dirname(src), f"egg-soak-{n}.json")
            files[repo].append(path)
            added[repo].append(path)
            kind = "added"
        else:
            path = added[repo].pop() if added[repo] else rng.choice(files[repo])
            files[repo].remove(path)
            git(repo, "rm", "-q", path)
            git(repo, "commit", "-q", "-m", f"soak {n}: remove")
            removed.append([os.path.basename(repo), os.path.relpath(path, repo), time.time()])
            counts["removed"] += 1
            continue
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(doc, fh, indent=4)
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", f"soak {n}: {kind}")
        counts[kind] += 1
    print(json.dumps({"commits": sum(counts.values()), **counts, "removed_files": removed}))


class Client:
    def __init__(self, base):
        m = re.match(r"http://([^/:]+):(\d+)$", base)
        self.host, self.port = m.group(1), int(m.group(2))
        self.conn = None

    def get(self, path):
        for attempt in range(2):
            try:
                if self.conn is None:
                    self.conn = http.client.HTTPConnection(self.host, self.port, timeout=10)
                self.conn.request("GET", path)
                r = self.conn.getresponse()
                return r.status, r.read()
            except (OSError, http.client.HTTPException):
                self.conn = None
                if attempt:
                    raise
        raise AssertionError("unreachable")


def build_id(client):
    status, body = client.get("/api/v1/_status.json")
    if status != 200:
        raise RuntimeError(f"/api/v1/_status.json answered {status}")
    doc = json.loads(body)
    return doc["buildId"]


def check(base, seconds_between):
    client = Client(base)
    rng = random.Random(7)
    figures = {"rounds": 0, "consistent": 0, "straddled": 0, "mixed": 0, "requests": 0,
               "errors": 0}
    mixed = []
    while not STOP:
        try:
            before = build_id(client)
            status, body = client.get("/api/v1/eggs/_summary.json")
            figures["requests"] += 2
            if status != 200:
                raise RuntimeError(f"_summary.json answered {status}")
            summary = json.loads(body)
            found = []
            for item in rng.sample(summary, min(8, len(summary))):
                slug = item["slug"]
                results = {}
                wanted = [f"/api/v1/eggs/{slug}.json", f"/eggs/{slug}/"]
                # An import file exists only for a panel that can import the egg.
                if item["importable"].get("pelican"):
                    wanted.append(f"/api/v1/eggs/{slug}/pelican.json")
                for path in wanted:
                    results[path] = client.get(path)
                    figures["requests"] += 1
                found.append((item, results))
            after = build_id(client)
            figures["requests"] += 1
        except (OSError, http.client.HTTPException, RuntimeError, ValueError, KeyError) as e:
            figures["errors"] += 1
            print(f"check: error: {e}", file=sys.stderr)
            time.sleep(seconds_between)
            continue
        figures["rounds"] += 1
        if before != after:
            figures["straddled"] += 1
            continue
        bad = []
        for item, results in found:
            for path, (status, body) in results.items():
                if status != 200:
                    bad.append(f"{path} answered {status} in build {before} that lists it")
            status, body = results[f"/api/v1/eggs/{item['slug']}.json"]
            if status == 200:
                meta = json.loads(body)["meta"]
                if (meta["name"], meta["indexedAt"]) != (item["name"], item["indexedAt"]):
                    bad.append(f"{item['slug']}: document {meta['name']!r} indexed at "
                               f"{meta['indexedAt']}, summary {item['name']!r} at {item['indexedAt']}")
        if bad:
            figures["mixed"] += 1
            mixed.extend(bad[:3])
            print("check: mixed: " + "; ".join(bad[:3]), file=sys.stderr)
        else:
            figures["consistent"] += 1
        time.sleep(seconds_between)
    figures["examples"] = mixed[:5]
    print(json.dumps(figures))


def rss_kib(pid):
    with open(f"/proc/{pid}/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def memory(pid, every):
    """Samples VmRSS; the first sample is the baseline (taken once the first build is served)."""
    start = time.monotonic()
    samples = []
    while not STOP:
        try:
            samples.append((round(time.monotonic() - start, 1), rss_kib(pid)))
        except (OSError, RuntimeError):
            break
        time.sleep(every)
    base = samples[0][1]
    worst = max(samples, key=lambda s: s[1])
    print(json.dumps({"baseline_kib": base, "max_kib": worst[1], "max_at_s": worst[0],
                      "max_ratio": round(worst[1] / base, 3), "last_kib": samples[-1][1],
                      "samples": [[t, k] for t, k in samples]}))


def paths(base, out):
    """The load's paths for bench/soak.lua, one per line, and `OUT.json`: for each path, whether
    the first build made it (`exists`: for an import file, whether the egg's document
    names it) and the egg it belongs to (`egg`: repository and file, or null)."""
    client = Client(base)
    status, body = client.get("/api/v1/eggs/_summary.json")
    assert status == 200, status
    summary = json.loads(body)
    rng = random.Random(3)
    expected = {}
    for p in ["/api/v1/eggs/_index.json", "/api/v1/eggs/_summary.json", "/api/v1/_status.json",
              "/api/v1/compat/pelican.json", "/api/v1/compat/pterodactyl.json", "/",
              "/eggs/", "/feed.atom", "/api/v1/openapi.json"]:
        expected[p] = {"exists": True, "egg": None}
    for item in rng.sample(summary, min(200, len(summary))):
        s = item["slug"]
        egg = [item["repo"], item["path"]]
        # The import files the egg's document names (`meta.import`: a file Pelican cannot
        # import at all is not written, its URL null or left out) are the ones published.
        status, body = client.get(f"/api/v1/eggs/{s}.json")
        assert status == 200, f"/api/v1/eggs/{s}.json answered {status}, the summary lists it"
        imports = json.loads(body)["meta"]["import"]
        pelican, pterodactyl = imports.get("pelican") or {}, imports.get("pterodactyl") or {}
        for p, exists in [(f"/api/v1/eggs/{s}.json", True),
                          (f"/api/v1/eggs/{s}/pelican.json", bool(pelican.get("json"))),
                          (f"/api/v1/eggs/{s}/pterodactyl.json", bool(pterodactyl.get("json"))),
                          (f"/api/v1/eggs/{s}/pelican.yaml", bool(pelican.get("yaml"))),
                          (f"/eggs/{s}/", True)]:
            expected[p] = {"exists": exists, "egg": egg}
    # 404s, each about 2 % of the load together.
    for p in ["/api/v1/eggs/no-such-egg.json", "/eggs/no-such-egg/", "/nope"]:
        expected[p] = {"exists": False, "egg": None}
    lines = list(expected)
    with open(out, "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")
    with open(out + ".json", "w", encoding="utf-8") as fh:
        json.dump(expected, fh, indent=1)
    # One request to each, over one connection (about a second), so that the memory baseline
    # taken right after holds what serving them allocates, before the first rebuild (10 s after
    # the first build) can start. Each must answer as the catalog says: 200, or 404 for a path
    # not published.
    started = time.monotonic()
    unlike = []
    for p in lines:
        status, _ = client.get(p)
        if status != (200 if expected[p]["exists"] else 404):
            unlike.append(f"{p} answered {status}, the catalog says it is {'' if expected[p]['exists'] else 'not '}published")
    print(json.dumps({"paths": len(lines), "eggs": len(summary),
                      "warm_s": round(time.monotonic() - started, 2), "unlike_catalog": unlike}))


def judge(paths_json, mutate_json, wrk_out, start):
    """Names every path the load got 404 or 410 for, and why each was expected; a path the
    first build made whose egg was not removed upstream (or not yet, at the second it
    first answered) should exist: exits 1 naming it. Times are printed in seconds from `start`
    (Unix seconds, when the load began)."""
    with open(paths_json, encoding="utf-8") as fh:
        expected = json.load(fh)
    with open(mutate_json, encoding="utf-8") as fh:
        removed = {(repo, path): at for repo, path, at in json.load(fh)["removed_files"]}
    gone = []
    with open(wrk_out, encoding="utf-8") as fh:
        for line in fh:
            m = re.match(r"^gone (\d+) (\d+) (\d+) (\d+) (.*)$", line.rstrip("\n"))
            if m:
                gone.append((int(m[1]), int(m[2]), int(m[3]), int(m[4]), m[5]))
    fine, wrong = [], []
    for status, count, first, last, path in gone:
        what = f"{status} {path}: {count} times, at {first - start}-{last - start} s"
        want = expected.get(path)
        egg = tuple(want["egg"]) if want and want["egg"] else None
        # Lua's seconds are whole: the commit's second counts as after it.
        removed_at = removed.get(egg) if egg else None
        if want is None:
            wrong.append(f"{what}: not a path of the load")
        elif removed_at is not None and first >= int(removed_at):
            fine.append(f"{what}: its egg {egg[0]}/{egg[1]} was removed upstream at {int(removed_at) - start} s")
        elif removed_at is not None:
            wrong.append(f"{what}: before its egg {egg[0]}/{egg[1]} was removed upstream (at {int(removed_at) - start} s)")
        elif not want["exists"] and status == 404:
            fine.append(f"{what}: not published (no such egg, or an import file the egg's document does not name)")
        elif not want["exists"]:
            wrong.append(f"{what}: never published, but its egg was not removed either")
        elif egg:
            wrong.append(f"{what}: published by the first build and its egg not removed: should exist")
        else:
            wrong.append(f"{what}: published by the first build: should exist")
    for line in fine:
        print(f"  expected  {line}")
    for line in wrong:
        print(f"  FAIL      {line}")
    print(json.dumps({"gone_paths": len(gone), "expected": len(fine), "should_exist": len(wrong)}))
    sys.exit(1 if wrong else 0)


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "paths":
        paths(args[0], args[1])
    elif cmd == "mutate":
        mutate(args[0], float(args[1]))
    elif cmd == "check":
        check(args[0], float(args[1]))
    elif cmd == "memory":
        memory(int(args[0]), float(args[1]))
    elif cmd == "judge":
        judge(args[0], args[1], args[2], int(args[3]))
    else:
        sys.exit(f"unknown subcommand {cmd}")


if __name__ == "__main__":
    main()
