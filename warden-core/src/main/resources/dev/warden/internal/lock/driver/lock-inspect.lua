-- lock-inspect: reads a lock's whole state in one atomic step, for diagnostics.
-- KEYS[1]  lock hash (see lock-acquire.lua)
-- KEYS[2]  fence counter (see lock-acquire.lua)
-- ARGV     none
-- Returns  {pttl, lastToken or -1, field1, value1, field2, value2, ...} (all lock hash fields)
local fields = redis.call('HGETALL', KEYS[1])
local last = redis.call('GET', KEYS[2])
local out = {redis.call('PTTL', KEYS[1]), last and tonumber(last) or -1}
for i = 1, #fields do
  out[#out + 1] = fields[i]
end
return out
