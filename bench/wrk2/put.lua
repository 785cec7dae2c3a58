-- wrk2 script for dht: the 'put' workload of dht bench.
-- Example: KEYS=100000 wrk -t2 -c64 -d30s -R10000 -s bench/wrk2/put.lua --latency http://localhost:8080
-- Settings (environment variables) and key choice: common.lua beside this file.
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "common.lua")

request = put_request
