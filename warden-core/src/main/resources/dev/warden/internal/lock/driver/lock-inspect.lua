-- lock-inspect: reads a lock's whole state in one atomic step, for diagnostics.
-- KEYS[1]  lock hash (see lock-acquire.lua)
-- KEYS[2]  fence (see prelude.lua's mint_token)
-- ARGV     none
-- Returns  {pttl, lastToken or -1, field1, value1, field2, value2, ...} (all lock hash fields)
local fields = redis.call('HGETALL', KEYS[1])
local out = {redis.call('PTTL', KEYS[1]), last_token(KEYS[2]) or -1}
for i = 1, #fields do
  out[#out + 1] = fields[i]
end
return out
