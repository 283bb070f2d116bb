-- recording-reply: the end of a script's recording twin (Script.recording()), whose wake-ups its
-- client publishes (WakeUps.FROM_CLIENT). The twin's prelude records them instead of publishing
-- (`PUBLISH` false: see publish() in prelude.lua), and its last line opens `local function
-- run_script()`, so the script's own text, unchanged and on the same lines (error line numbers are
-- those of the plain script), is that function's body, which the first line below closes.
-- KEYS, ARGV: the script's own.
-- Returns: {recorded, reply}: the wake-ups recorded (channel, message, fallback channel or '', ...;
--   empty when none), then the script's own reply (absent when it is nil). An error reply is returned as it is, and its
--   recorded wake-ups are not: redis.Scripts publishes only those of a script that succeeded. A
--   script that raises an error (a failed redis.call) ends here too, with nothing published.
end
local reply = run_script()
if type(reply) == 'table' and reply.err then
  return reply
end
return {recorded, reply}
