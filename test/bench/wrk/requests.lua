-- Internal (benchmark): the request mix of one wrk run, and its figures as one JSON line.
--
-- WRK_REQUESTS names a file the bench writes, one request per line, fields separated by tabs:
--   METHOD <tab> path <tab> body (may be empty) <tab> header: value <tab> header: value ...
-- Requests are formatted once, in init, and sent in turn; each thread starts at a different
-- line so two threads do not send the same request in lockstep.
-- WRK_ADDRESSES (optional), "host:port,host:port": thread i sends to address i (round robin), so
-- one wrk run can load two servers, each thread's connections on one of them.
-- done() prints `WRK_JSON {...}`: requests, duration (µs), latency percentiles (µs) and errors.

local function split(text, separator)
  local fields, start = {}, 1
  while true do
    local at = string.find(text, separator, start, true)
    if not at then
      table.insert(fields, string.sub(text, start))
      return fields
    end
    table.insert(fields, string.sub(text, start, at - 1))
    start = at + #separator
  end
end

local thread_count = 0
local addresses = os.getenv("WRK_ADDRESSES")

function setup(thread)
  thread_count = thread_count + 1
  thread:set("thread_index", thread_count)
  if addresses and addresses ~= "" then
    local list = split(addresses, ",")
    local hostport = split(list[(thread_count - 1) % #list + 1], ":")
    thread.addr = wrk.lookup(hostport[1], hostport[2])[1]
  end
end

local requests = {}
local next_request = 1

function init(args)
  local file = assert(io.open(assert(os.getenv("WRK_REQUESTS"), "WRK_REQUESTS is not set"), "r"))
  for line in file:lines() do
    if line ~= "" then
      local fields = split(line, "\t")
      local headers = {}
      for i = 4, #fields do
        local colon = string.find(fields[i], ":", 1, true)
        headers[string.sub(fields[i], 1, colon - 1)] = string.gsub(string.sub(fields[i], colon + 1), "^%s+", "")
      end
      local body = fields[3] ~= "" and fields[3] or nil
      table.insert(requests, wrk.format(fields[1], fields[2], headers, body))
    end
  end
  file:close()
  assert(#requests > 0, "WRK_REQUESTS holds no request")
  next_request = ((thread_index or 1) - 1) * 7 % #requests + 1
end

function request()
  local text = requests[next_request]
  next_request = next_request % #requests + 1
  return text
end

function done(summary, latency, _requests)
  local errors = summary.errors
  io.write(string.format(
    'WRK_JSON {"requests":%d,"durationMicros":%d,"bytes":%d,"p50Micros":%d,"p99Micros":%d,"maxMicros":%d,' ..
      '"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d}}\n',
    summary.requests, summary.duration, summary.bytes, latency:percentile(50), latency:percentile(99), latency.max,
    errors.connect, errors.read, errors.write, errors.status, errors.timeout))
end
