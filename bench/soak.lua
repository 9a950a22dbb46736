-- wrk script of bench/soak.sh: a mix of the catalog's paths (read from SOAK_PATHS, one per line,
-- written by `soak.py paths`), a third of them asking for compression (gzip, br, zstd in turn),
-- one in ten conditional (If-None-Match: * answers 304 for a document that exists; an
-- If-Modified-Since in the future too), counting every status it gets. done() prints one line
-- `statuses {"200":N,...}` that soak.sh reads.

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
    n = 0
    math.randomseed(id * 7919)
end

local codings = { "gzip", "br", "zstd" }

function request()
    n = n + 1
    local path = paths[math.random(#paths)]
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
end

function done(summary, latency, requests)
    local total = {}
    for _, thread in ipairs(threads) do
        local c = thread:get("counts")
        for k, v in pairs(c) do total[k] = (total[k] or 0) + v end
    end
    local parts = {}
    for k, v in pairs(total) do table.insert(parts, string.format('"%s":%d', k, v)) end
    table.sort(parts)
    io.write("statuses {" .. table.concat(parts, ",") .. "}\n")
    io.write(string.format("latency_us p50=%d p90=%d p99=%d p999=%d max=%d\n",
        latency:percentile(50), latency:percentile(90), latency:percentile(99),
        latency:percentile(99.9), latency.max))
    io.write(string.format("errors connect=%d read=%d write=%d timeout=%d status=%d\n",
        summary.errors.connect, summary.errors.read, summary.errors.write,
        summary.errors.timeout, summary.errors.status))
end
