#!/usr/bin/env python3
"""The moving parts of bench/soak.sh: upstream commits, the consistency checker, the load's paths.

Subcommands (each prints one JSON object of figures on stdout when it ends):
  paths BASE OUT         writes the load's request lines (path and headers) for bench/soak.lua
  mutate REPOS SECONDS   commits to the upstream git repositories every few seconds until killed
  check BASE SECONDS     checks until killed that what one build serves holds together
  memory PID SECONDS     samples the resident memory (VmRSS) of PID until killed

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
            counts["removed"] += 1
            continue
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(doc, fh, indent=4)
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", f"soak {n}: {kind}")
        counts[kind] += 1
    print(json.dumps({"commits": sum(counts.values()), **counts}))


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
    """The load's request lines: `PATH<TAB>HEADER...` for bench/soak.lua, one per line."""
    client = Client(base)
    status, body = client.get("/api/v1/eggs/_summary.json")
    assert status == 200, status
    summary = json.loads(body)
    rng = random.Random(3)
    lines = []
    for p in ["/api/v1/eggs/_index.json", "/api/v1/eggs/_summary.json", "/api/v1/_status.json",
              "/api/v1/compat/pelican.json", "/api/v1/compat/pterodactyl.json", "/",
              "/eggs/", "/feed.atom", "/api/v1/openapi.json"]:
        lines.append(p)
    for item in rng.sample(summary, min(200, len(summary))):
        s = item["slug"]
        lines += [f"/api/v1/eggs/{s}.json", f"/api/v1/eggs/{s}/pelican.json",
                  f"/api/v1/eggs/{s}/pterodactyl.json", f"/api/v1/eggs/{s}/pelican.yaml",
                  f"/eggs/{s}/"]
    # 404s, each about 2 % of the load together.
    lines += ["/api/v1/eggs/no-such-egg.json", "/eggs/no-such-egg/", "/nope"]
    with open(out, "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")
    # One request to each, over one connection (about a second), so that the memory baseline
    # taken right after holds what serving them allocates, before the first rebuild (10 s after
    # the first build) can start.
    started = time.monotonic()
    for p in lines:
        client.get(p)
    print(json.dumps({"paths": len(lines), "eggs": len(summary),
                      "warm_s": round(time.monotonic() - started, 2)}))


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
    else:
        sys.exit(f"unknown subcommand {cmd}")


if __name__ == "__main__":
    main()
