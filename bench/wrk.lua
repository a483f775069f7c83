-- One script for every request of the benchmark (bench/run.py), so that each pays the same
-- Lua cost. Set by environment variables:
--   BENCH_METHOD   GET (default) or POST
--   BENCH_HEADERS  extra headers, one "Name: value" a line
--   BENCH_BODY     the form body of a POST; "&key=<new key>" is added to each request, so
--                  that every round save is a real one (the idempotency key is never repeated)
--   BENCH_EXPECT   the status a good answer has (200, 204, 303 ...)
--   BENCH_PATHS    paths taken in turn, one a line, instead of the URL's (the round saves
--                  spread over several games, none of which may pass 500 rounds)
-- done() prints one JSON line: requests, seconds, p50 and p99 latency (ms), good answers.

local counter = 0
good = 0  -- a global: done() reads it from each thread
local threads = {}
local method = os.getenv("BENCH_METHOD") or "GET"
local body = os.getenv("BENCH_BODY")
local expect = tonumber(os.getenv("BENCH_EXPECT") or "200")
local headers = {}
for line in (os.getenv("BENCH_HEADERS") or ""):gmatch("[^\n]+") do
  local name, value = line:match("^([^:]+):%s*(.*)$")
  if name then headers[name] = value end
end
local paths = {}
for line in (os.getenv("BENCH_PATHS") or ""):gmatch("[^\n]+") do table.insert(paths, line) end

function setup(thread)
  thread:set("thread_id", #threads + 1)
  table.insert(threads, thread)
end

function request()
  counter = counter + 1
  local path = nil
  if #paths > 0 then path = paths[(counter % #paths) + 1] end
  if method == "POST" then
    local key = string.format("b%d-%d-%d", thread_id, counter, math.random(1, 1000000000))
    return wrk.format("POST", path, headers, body .. "&key=" .. key)
  end
  return wrk.format("GET", path, headers, nil)
end

function response(status, response_headers, response_body)
  if status == expect then good = good + 1 end
end

function done(summary, latency, requests)
  local total_good = 0
  for _, thread in ipairs(threads) do total_good = total_good + (thread:get("good") or 0) end
  io.write(string.format(
    'BENCH {"requests": %d, "seconds": %.3f, "p50_ms": %.3f, "p99_ms": %.3f, "good": %d, ' ..
    '"socket_errors": %d, "bad_status": %d}\n',
    summary.requests, summary.duration / 1e6, latency:percentile(50) / 1000,
    latency:percentile(99) / 1000, total_good,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    summary.errors.status))
end
