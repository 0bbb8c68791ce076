-- wrk script for the benchmark: signed forge_b (GitHub) deliveries, or a fixed request.
--   wrk ... -s bench/lua/delivery.lua URL -- CONF_FILE
-- CONF_FILE holds one "name value" per line (written by bench/lib/wrk.mjs):
--   mode    unique | replay | static
--   path    request path
--   key     HMAC key (the webhook token)                      (unique, replay)
--   prefix  file with the body bytes before the head sha      (unique, replay)
--   suffix  file with the body bytes after it                 (unique, replay)
--   sha     the fixed head sha of a replay                    (replay)
--   delivery its fixed X-GitHub-Delivery                       (replay)
--   body    file with the whole body                          (static)
--   nonce   8 hex digits, unique per wrk invocation
--   rate    total requests/s over all threads; 0 or absent = as fast as possible
--   threads wrk's -t, to split the rate
--   header  "Name: value", repeatable
-- The body is prefix .. sha .. suffix, so the HMAC's inner hash over the key block and the
-- 64-byte-aligned part of the prefix is computed once per thread, and each request only
-- hashes the last block(s) and the outer HMAC.
package.path = (os.getenv("BENCH_LUA_DIR") or ".") .. "/?.lua;" .. package.path
local sha256 = require("sha256")

local function read_file(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("*a")
  f:close()
  return s
end

local function read_conf(path)
  local conf = { header = {} }
  for line in io.lines(path) do
    local name, value = line:match("^(%S+)%s(.*)$")
    if name == "header" then
      conf.header[#conf.header + 1] = value
    elseif name then
      conf[name] = value
    end
  end
  return conf
end

-- ---------------------------------------------------------------- main state: threads
local threads = {}
local next_tid = 0
function setup(thread)
  next_tid = next_tid + 1
  thread:set("tid", next_tid)
  threads[#threads + 1] = thread
end

-- ---------------------------------------------------------------- thread state
local head, make, cached
local counter = 0
local nonce = "00000000"
local interval, next_slot = 0, 0
local now_ms

function init(args)
  local conf = read_conf(assert(args[1], "usage: -- CONF_FILE"))
  nonce = conf.nonce or nonce
  local lines = { "POST " .. conf.path .. " HTTP/1.1", "Host: " .. wrk.host .. ":" .. wrk.port }
  for _, h in ipairs(conf.header) do lines[#lines + 1] = h end

  if conf.mode == "static" then
    local body = read_file(conf.body)
    lines[#lines + 1] = "Content-Length: " .. #body
    cached = table.concat(lines, "\r\n") .. "\r\n\r\n" .. body
  else
    local prefix, suffix = read_file(conf.prefix), read_file(conf.suffix)
    local sign = sha256.hmac_prefixed(conf.key, prefix)
    lines[#lines + 1] = "Content-Length: " .. (#prefix + 40 + #suffix)
    head = table.concat(lines, "\r\n") .. "\r\n"
    local tid4 = string.format("%04x", tid or 0)
    make = function(sha, delivery)
      return head .. "X-GitHub-Delivery: " .. delivery .. "\r\nX-Hub-Signature-256: sha256="
        .. sign(sha .. suffix) .. "\r\n\r\n" .. prefix .. sha .. suffix
    end
    if conf.mode == "replay" then
      cached = make(conf.sha, conf.delivery or (nonce .. "-0000-4000-8000-000000000000"))
    else
      assert(conf.mode == "unique", "mode must be unique, replay or static")
      local fill = "b0" .. string.rep("0", 18)
      make_unique = function()
        counter = counter + 1
        local c8 = string.format("%08x", counter)
        -- sha: nonce(8) tid(4) fill(20) counter(8) = 40 hex digits, unique per request
        local sha = nonce .. tid4 .. fill .. c8
        local delivery = nonce .. "-" .. tid4 .. "-4000-8000-0000" .. c8
        return make(sha, delivery)
      end
    end
  end

  local rate = tonumber(conf.rate or "0") or 0
  if rate > 0 then
    local ffi = require("ffi")
    ffi.cdef([[
      typedef struct { long tv_sec; long tv_nsec; } bench_timespec;
      int clock_gettime(int clk_id, bench_timespec *tp);
    ]])
    local ts = ffi.new("bench_timespec")
    now_ms = function()
      ffi.C.clock_gettime(1, ts) -- CLOCK_MONOTONIC
      return tonumber(ts.tv_sec) * 1000 + tonumber(ts.tv_nsec) / 1e6
    end
    interval = 1000 / (rate / (tonumber(conf.threads or "1") or 1))
    next_slot = now_ms()
    -- Pacing: each thread hands out send slots `interval` ms apart to whichever of its
    -- connections is ready; a slot missed (all connections busy) is not caught up in a burst.
    delay = function()
      local now = now_ms()
      if next_slot < now then next_slot = now end
      local wait = next_slot - now
      next_slot = next_slot + interval
      return math.floor(wait + 0.5)
    end
  end
end

function request()
  if cached then return cached end
  return make_unique()
end

-- ---------------------------------------------------------------- main state: report
function done(summary, latency, requests)
  local e = summary.errors
  local out = {
    string.format('"requests":%d', summary.requests),
    string.format('"duration_us":%d', summary.duration),
    string.format('"bytes":%d', summary.bytes),
    string.format('"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d}',
      e.connect, e.read, e.write, e.status, e.timeout),
    string.format('"latency_us":{"min":%d,"max":%d,"mean":%.1f,"stdev":%.1f,"p50":%d,"p90":%d,"p99":%d,"p999":%d}',
      latency.min, latency.max, latency.mean, latency.stdev,
      latency:percentile(50), latency:percentile(90), latency:percentile(99), latency:percentile(99.9)),
  }
  io.write("BENCH_JSON {" .. table.concat(out, ",") .. "}\n")
end
