import { LuaScript } from './lua-script.js'

// A session is a hash under <prefix><key>: r = the record's JSON without
// expiresAt and version, e = expiresAt (ms), v = version, i = identity
// (absent when anonymous). The key expires at e (PEXPIREAT). Writes are
// conditional on v (setSession). Signed-in sessions are members of the set
// <prefix>identity:<identity>, which expires no earlier than its members.
// Session keys are base64url (no ':'), so the two kinds never collide.
// D-REDIS-01 (the layout) and D-SESSION-06 (the version).

/** Raises the index's expiry to at least `exp`. Inlined in the scripts below. */
const KEEP_INDEX = `
local function keep_index (index, member, exp, now)
  redis.call('SADD', index, member)
  local ttl = redis.call('PTTL', index)
  if ttl < 0 or now + ttl < exp then redis.call('PEXPIREAT', index, exp) end
end
`

/**
 * A conditional write (see SessionStore.set): answers 'written', 'gone'
 * (the session it depends on no longer exists) or 'conflict' (its version
 * moved, or the target key is taken), all in one step.
 * KEYS: record, the record it was loaded from (the same key when not
 * regenerated, and when new), new index (ignored when anonymous).
 * ARGV: json, expiresAt, identity ('' = none), now, member, index prefix,
 * record prefix, loaded version ('' = a new session), version, loaded member.
 */
export const setSession = new LuaScript(KEEP_INDEX + `
local exp, now, identity, member = tonumber(ARGV[2]), tonumber(ARGV[4]), ARGV[3], ARGV[5]
if ARGV[8] == '' then
  if redis.call('EXISTS', KEYS[1]) == 1 then return 'conflict' end
else
  if redis.call('EXISTS', KEYS[2]) == 0 then return 'gone' end
  if (redis.call('HGET', KEYS[2], 'v') or '0') ~= ARGV[8] then return 'conflict' end
  if KEYS[2] ~= KEYS[1] then
    if redis.call('EXISTS', KEYS[1]) == 1 then return 'conflict' end
    local moved = redis.call('HGET', KEYS[2], 'i')
    redis.call('DEL', KEYS[2])
    if moved then redis.call('SREM', ARGV[6] .. moved, ARGV[10]) end
  end
end
local old = redis.call('HGET', KEYS[1], 'i')
if old and old ~= identity then redis.call('SREM', ARGV[6] .. old, member) end
redis.call('DEL', KEYS[1])
if exp <= now then return 'written' end
if identity == '' then
  redis.call('HSET', KEYS[1], 'r', ARGV[1], 'e', ARGV[2], 'v', ARGV[9])
else
  redis.call('HSET', KEYS[1], 'r', ARGV[1], 'e', ARGV[2], 'v', ARGV[9], 'i', identity)
end
redis.call('PEXPIREAT', KEYS[1], exp)
if identity ~= '' then
  keep_index(KEYS[3], member, exp, now)
  -- Keep the index small: drop members whose sessions have expired.
  if redis.call('SCARD', KEYS[3]) > 32 then
    for _, m in ipairs(redis.call('SMEMBERS', KEYS[3])) do
      if redis.call('EXISTS', ARGV[7] .. m) == 0 then redis.call('SREM', KEYS[3], m) end
    end
  end
end
return 'written'
`, 3)

/**
 * KEYS: record. ARGV: expiresAt, now, member, index prefix. Moves the
 * deadline later, never earlier; unknown (destroyed, expired) keys are left
 * alone, so a touch never brings a record back.
 */
export const touchSession = new LuaScript(KEEP_INDEX + `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local exp = tonumber(ARGV[1])
if exp <= tonumber(redis.call('HGET', KEYS[1], 'e') or '0') then return 0 end
redis.call('HSET', KEYS[1], 'e', ARGV[1])
redis.call('PEXPIREAT', KEYS[1], exp)
local identity = redis.call('HGET', KEYS[1], 'i')
if identity then keep_index(ARGV[4] .. identity, ARGV[3], exp, tonumber(ARGV[2])) end
return 1
`, 1)

/** KEYS: record. ARGV: member, index prefix. */
export const destroySession = new LuaScript(`
local identity = redis.call('HGET', KEYS[1], 'i')
redis.call('DEL', KEYS[1])
if identity then redis.call('SREM', ARGV[2] .. identity, ARGV[1]) end
return 1
`, 1)

/** KEYS: index. ARGV: record prefix, identity. Resolves with the sessions ended. */
export const destroyAllSessions = new LuaScript(`
local ended = 0
for _, m in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local record = ARGV[1] .. m
  if redis.call('HGET', record, 'i') == ARGV[2] then ended = ended + redis.call('DEL', record) end
end
redis.call('DEL', KEYS[1])
return ended
`, 1)
