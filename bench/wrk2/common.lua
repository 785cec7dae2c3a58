-- Shared by the wrk2 scripts of this folder: settings, key choice and the get/put requests of
-- dht bench. Each workload script loads this file and sets `request`. Functions and settings are
-- globals because wrk calls setup/init/request in each thread's own Lua state.
-- Settings come from the environment, with the same meaning as dht bench's flags:
--   KEYS=1000000 DISTRIBUTION=uniform|sequential|zipfian VALUE_SIZE=100 SEED=42
--   START=0 (sequential: thread i begins at key START + i * 1000003, as dht bench's --start)
--   ACK= FROM= (optional) MISS_RATIO=0 READ_RATIO=0.9 RANGE_LENGTH=100
-- Keys are "k" .. zero-padded 10-digit index, as in dht bench, so both tools hit the same keys.
keys = tonumber(os.getenv("KEYS") or "1000000")
distribution = os.getenv("DISTRIBUTION") or "uniform"
value_size = tonumber(os.getenv("VALUE_SIZE") or "100")
seed = tonumber(os.getenv("SEED") or "42")
start = tonumber(os.getenv("START") or "0")
miss_ratio = tonumber(os.getenv("MISS_RATIO") or "0")
read_ratio = tonumber(os.getenv("READ_RATIO") or "0.9")
range_length = tonumber(os.getenv("RANGE_LENGTH") or "100")
replica = ""
if os.getenv("ACK") then replica = replica .. "&ack=" .. os.getenv("ACK") end
if os.getenv("FROM") then replica = replica .. "&from=" .. os.getenv("FROM") end

thread_counter = 0
seq = 0
value = string.rep("v", value_size)

-- Zipfian (Gray et al., as in YCSB and dht bench): rank 0 hottest, theta 0.99.
theta = 0.99
zetan, eta, alpha, half_pow = nil, nil, nil, nil
function zeta(n)
  local exact = math.min(n, 1000000)
  local sum = 0
  for i = 1, exact do sum = sum + 1 / (i ^ theta) end
  if n > exact then
    sum = sum + ((n + 0.5) ^ (1 - theta) - (exact + 0.5) ^ (1 - theta)) / (1 - theta)
  end
  return sum
end
function zipf_init()
  zetan = zeta(keys)
  alpha = 1 / (1 - theta)
  eta = (1 - (2 / keys) ^ (1 - theta)) / (1 - zeta(2) / zetan)
  half_pow = 1 + 0.5 ^ theta
end

function setup(thread)
  -- each wrk thread gets its own sequential slice start and random stream
  thread:set("thread_id", thread_counter)
  thread_counter = thread_counter + 1
end

function init(args)
  math.randomseed(seed + (thread_id or 0))
  seq = start + (thread_id or 0) * 1000003
  if distribution == "zipfian" then zipf_init() end
end

function next_index()
  if distribution == "sequential" then
    local i = seq % keys
    seq = seq + 1
    return i
  elseif distribution == "zipfian" then
    local u = math.random()
    local uz = u * zetan
    if uz < 1 then return 0 end
    if uz < half_pow then return 1 end
    return math.min(keys - 1, math.floor(keys * ((eta * u - eta + 1) ^ alpha)))
  end
  return math.random(0, keys - 1)
end

function key(i) return string.format("k%010d", i) end

function get_request()
  local i
  if miss_ratio > 0 and math.random() < miss_ratio then
    i = keys + math.random(0, keys - 1)
  else
    i = next_index()
  end
  return wrk.format("GET", "/v0/entity?id=" .. key(i) .. replica)
end

function put_request()
  return wrk.format("PUT", "/v0/entity?id=" .. key(next_index()) .. replica, nil, value)
end

