-- ceiling-call: what a second script call costs Redis apart from its commands, for the ceiling
-- run: a real pair is two calls (lock, then unlock), ceiling-pair.lua does both halves' commands
-- in one, so the ceiling adds one call of this script (the request read and parsed, the script
-- looked up and entered, the reply written) per pair.
-- KEYS[1]  a lock hash, not touched
-- ARGV[1]  owner id, not used
-- ARGV[2]  lease in milliseconds, not used
-- Returns  1
return 1
