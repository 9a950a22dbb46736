-- wrk script of bench/soak.sh: a mix of the catalog's paths (read from SOAK_PATHS, one per line,
-- written by `soak.py paths`), a third of them asking for compression (gzip, br, zstd in turn),
-- one in ten conditional (If-None-Match: * answers 304 for a document that exists; an
-- If-Modified-Since in the future too), counting every status it gets, and naming every path
-- that answered 404 or 410 (how many times, the first and last second it did).
--
-- wrk tells a response callback neither the connection nor the request it answers, so soak.sh
-- runs one connection per thread (-tN -cN): a thread's connection sends a request only once the
-- previous one is answered, so the path of its last request is the path of each response.
--
-- done() prints one line `statuses {"200":N,...}` and one line `gone STATUS COUNT FIRST LAST
-- PATH` per path and status (404 or 410; FIRST and LAST in Unix seconds), which soak.sh reads.

local paths = {}
local threads = {}

for line in io.lines(os.getenv("SOAK_PATHS")) do
    if #line > 0 then table.insert(paths, line) end
end

function setup(thread)
    thread:set("id", #threads + 1)
    table.insert(threads, thread)
end

function init(args)
    counts = {}
    -- "STATUS PATH" -> count, first and last second it was answered.
    gone_n, gone_first, gone_last = {}, {}, {}
    n = 0
    last = nil
    math.randomseed(id * 7919)
end

local codings = { "gzip", "br", "zstd" }

function request()
    n = n + 1
    local path = paths[math.random(#paths)]
    last = path
    local headers = {}
    if n % 3 == 0 then headers["Accept-Encoding"] = codings[math.floor(n / 3) % 3 + 1] end
    if n % 10 == 1 then
        headers["If-None-Match"] = "*"
    elseif n % 10 == 2 then
        headers["If-Modified-Since"] = "Fri, 01 Jan 2100 00:00:00 GMT"
    end
    return wrk.format("GET", path, headers)
end

function response(status, headers, body)
    local key = tostring(status)
    counts[key] = (counts[key] or 0) + 1
    if status == 404 or status == 410 then
        local what = key .. " " .. (last or "?")
        local now = os.time()
        gone_n[what] = (gone_n[what] or 0) + 1
        gone_first[what] = gone_first[what] or now
        gone_last[what] = now
    end
end

function done(summary, latency, requests)
    local total = {}
    local gone = {}
    for _, thread in ipairs(threads) do
        local c = thread:get("counts")
        for k, v in pairs(c) do total[k] = (total[k] or 0) + v end
        local gn, gf, gl = thread:get("gone_n"), thread:get("gone_first"), thread:get("gone_last")
        for k, v in pairs(gn) do
            local g = gone[k] or { n = 0, first = gf[k], last = gl[k] }
            g.n = g.n + v
            g.first = math.min(g.first, gf[k])
            g.last = math.max(g.last, gl[k])
            gone[k] = g
        end
    end
    local parts = {}
    for k, v in pairs(total) do table.insert(parts, string.format('"%s":%d', k, v)) end
    table.sort(parts)
    io.write("statuses {" .. table.concat(parts, ",") .. "}\n")
    local lines = {}
    for k, g in pairs(gone) do
        local status, path = k:match("^(%d+) (.*)$")
        table.insert(lines, string.format("gone %s %d %d %d %s", status, g.n, g.first, g.last, path))
    end
    table.sort(lines)
    for _, l in ipairs(lines) do io.write(l .. "\n") end
    io.write(string.format("latency_us p50=%d p90=%d p99=%d p999=%d max=%d\n",
        latency:percentile(50), latency:percentile(90), latency:percentile(99),
        latency:percentile(99.9), latency.max))
    io.write(string.format("errors connect=%d read=%d write=%d timeout=%d status=%d\n",
        summary.errors.connect, summary.errors.read, summary.errors.write,
        summary.errors.timeout, summary.errors.status))
end
