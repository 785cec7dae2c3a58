-- wrk2 script for dht: the 'delete' workload of dht bench.
-- Example: KEYS=100000 wrk -t2 -c64 -d30s -R10000 -s bench/wrk2/delete.lua --latency http://localhost:8080
-- Settings (environment variables) and key choice: common.lua beside this file.
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "common.lua")

request = function()
  return wrk.format("DELETE", "/v0/entity?id=" .. key(next_index()) .. replica)
end
