-- wrk2 script for dht: the 'range' workload of dht bench.
-- Example: KEYS=100000 wrk -t2 -c64 -d30s -R10000 -s bench/wrk2/range.lua --latency http://localhost:8080
-- Settings (environment variables) and key choice: common.lua beside this file.
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "common.lua")

request = function()
  local i = next_index()
  return wrk.format("GET", "/v0/entities?start=" .. key(i) .. "&end=" .. key(math.min(i + range_length, 9999999999)))
end
