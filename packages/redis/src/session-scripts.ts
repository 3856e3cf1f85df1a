import { LuaScript } from './lua-script.js'

// A session is a hash under <prefix><key>: r = the record's JSON without
// expiresAt and version, e = expiresAt (ms), v = version, i = identity
// (absent when anonymous). The key expires at e (PEXPIREAT). Writes are
// conditional on v (setSession). Signed-in sessions are members of the
// sorted set <prefix>identity:<identity>, scored by their e: a write adds or
// moves one member and trims the expired ones by score, in O(log n) whatever
// the identity's session count, and the set expires no earlier than its
// members. An index left as a plain set by an older version is converted
// the first time a script meets it.
// A regenerated id leaves <prefix>moved:<old key> holding the new key, with
// the moved record's deadline, for destroy to follow (D-REDIS-11).
// Session keys are base64url (no ':'), so the three kinds never collide.
// D-REDIS-01 (the layout), D-REDIS-09 (the sorted set) and D-SESSION-06 (the version).

/**
 * Helpers inlined in the scripts below (each script is one round trip).
 *
 * index(identity): the key of the identity's index; one written as a set
 * (before D-REDIS-09) becomes a sorted set first, each member scored from
 * its record's e, members whose record is gone or signed in as someone else
 * dropped, its expiry kept. Once per index; O(n) that once.
 *
 * keep(index, member, exp, now, later_only): scores the member exp (when
 * later_only, only if that is later: a touch never moves a deadline
 * earlier), trims the members whose sessions have expired, and raises the
 * index's expiry to at least exp.
 */
const INDEX = `
local index_prefix, record_prefix = ARGV[1], ARGV[2]
local function index (identity)
  local key = index_prefix .. identity
  if redis.call('TYPE', key).ok == 'set' then
    local members = redis.call('SMEMBERS', key)
    local ttl = redis.call('PTTL', key)
    redis.call('DEL', key)
    for _, m in ipairs(members) do
      local fields = redis.call('HMGET', record_prefix .. m, 'e', 'i')
      if fields[1] and fields[2] == identity then redis.call('ZADD', key, fields[1], m) end
    end
    if ttl > 0 then redis.call('PEXPIRE', key, ttl) end
  end
  return key
end
local function keep (key, member, exp, now, later_only)
  local score = later_only and redis.call('ZSCORE', key, member)
  if not score or tonumber(score) < tonumber(exp) then redis.call('ZADD', key, exp, member) end
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
  local ttl = redis.call('PTTL', key)
  if ttl < 0 or tonumber(now) + ttl < tonumber(exp) then redis.call('PEXPIREAT', key, exp) end
end
`

/**
 * A conditional write (see SessionStore.set): answers 'written', 'gone'
 * (the session it depends on no longer exists) or 'conflict' (its version
 * moved, or the target key is taken), all in one step.
 * KEYS: record, the record it was loaded from (the same key when not
 * regenerated, and when new), new index (ignored when anonymous).
 * ARGV: index prefix, record prefix, json, expiresAt, identity ('' = none),
 * now, member, loaded version ('' = a new session), version, loaded member.
 */
export const setSession = new LuaScript(INDEX + `
local json, exp, identity, now, member = ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7]
if ARGV[8] == '' then
  if redis.call('EXISTS', KEYS[1]) == 1 then return 'conflict' end
else
  if redis.call('EXISTS', KEYS[2]) == 0 then return 'gone' end
  if (redis.call('HGET', KEYS[2], 'v') or '0') ~= ARGV[8] then return 'conflict' end
  if KEYS[2] ~= KEYS[1] then
    if redis.call('EXISTS', KEYS[1]) == 1 then return 'conflict' end
    local moved = redis.call('HGET', KEYS[2], 'i')
    redis.call('DEL', KEYS[2])
    if moved then redis.call('ZREM', index(moved), ARGV[10]) end
    -- The old id still names the session for a destroy (D-REDIS-11).
    if tonumber(exp) > tonumber(now) then
      local pointer = record_prefix .. 'moved:' .. ARGV[10]
      redis.call('SET', pointer, member)
      redis.call('PEXPIREAT', pointer, exp)
    end
  end
end
local stored = tonumber(exp) > tonumber(now)
local old = redis.call('HGET', KEYS[1], 'i')
if old and (old ~= identity or not stored) then redis.call('ZREM', index(old), member) end
redis.call('DEL', KEYS[1])
if not stored then return 'written' end
if identity == '' then
  redis.call('HSET', KEYS[1], 'r', json, 'e', exp, 'v', ARGV[9])
else
  redis.call('HSET', KEYS[1], 'r', json, 'e', exp, 'v', ARGV[9], 'i', identity)
end
redis.call('PEXPIREAT', KEYS[1], exp)
if identity ~= '' then
  -- The member's score is the record's deadline, even if it moved earlier.
  keep(index(identity), member, exp, now, false)
end
return 'written'
`, 3)

/**
 * KEYS: record. ARGV: index prefix, record prefix, expiresAt, now, member.
 * Moves the deadline later, never earlier; unknown (destroyed, expired) keys
 * are left alone, so a touch never brings a record back.
 */
export const touchSession = new LuaScript(INDEX + `
local exp = ARGV[3]
-- Every record has e: none means no record (never there, destroyed, expired).
local fields = redis.call('HMGET', KEYS[1], 'e', 'i')
if not fields[1] or tonumber(exp) <= tonumber(fields[1]) then return 0 end
redis.call('HSET', KEYS[1], 'e', exp)
redis.call('PEXPIREAT', KEYS[1], exp)
if fields[2] then keep(index(fields[2]), ARGV[5], exp, ARGV[4], true) end
return 1
`, 1)

/**
 * Ends the session under a key and, when a regenerated id moved it away
 * (`<prefix>moved:<key>` names where to, until the moved record's deadline),
 * the session it moved to, following each later move; each note is removed
 * as it is followed. KEYS: record. ARGV: index prefix, record prefix, member.
 * D-REDIS-11, D-SESSION-28.
 */
export const destroySession = new LuaScript(INDEX + `
local member = ARGV[3]
while member do
  local record = record_prefix .. member
  local identity = redis.call('HGET', record, 'i')
  redis.call('DEL', record)
  if identity then redis.call('ZREM', index(identity), member) end
  local pointer = record_prefix .. 'moved:' .. member
  member = redis.call('GET', pointer)
  if member then redis.call('DEL', pointer) end
end
return 1
`, 1)

/**
 * The live sessions of an identity, at most ARGV[4] of them, the latest
 * deadlines first, as a flat list of member, json, expiresAt, version.
 * Reads only the identity's index and its records: a page of members by
 * score at a time (ZREVRANGEBYSCORE: Redis 2.2; ZRANGE … BYSCORE REV
 * needs 6.2 and the package supports 4.0), one HMGET each. A member whose
 * record is gone (evicted, deleted by hand) or signed in as someone else is
 * removed from the index and the next page fills its place, so the limit
 * still holds. KEYS: none (the index is computed: it may need converting).
 * ARGV: index prefix, record prefix, identity, limit, now.
 * D-REDIS-10, D-SESSION-18.
 */
export const listSessions = new LuaScript(INDEX + `
local identity, limit = ARGV[3], tonumber(ARGV[4])
local key = index(identity)
local found, count, offset = {}, 0, 0
while count < limit do
  local want = limit - count
  local members = redis.call('ZREVRANGEBYSCORE', key, '+inf', '(' .. ARGV[5], 'LIMIT', offset, want)
  offset = offset + #members
  for _, m in ipairs(members) do
    local fields = redis.call('HMGET', record_prefix .. m, 'r', 'e', 'v', 'i')
    if fields[1] and fields[4] == identity then
      count = count + 1
      found[#found + 1] = m
      found[#found + 1] = fields[1]
      found[#found + 1] = fields[2]
      found[#found + 1] = fields[3] or '0'
    else
      redis.call('ZREM', key, m)
      offset = offset - 1
    end
  end
  -- A short page was the last one.
  if #members < want then break end
end
return found
`, 0)

/** Sessions one {@link destroySessionBatch} call ends at most, so no call blocks Redis for long. */
export const DESTROY_BATCH = 500

/**
 * One batch of destroyAllFor: drops the expired members, then ends the
 * sessions of the first `batch` members (those still signed in as
 * `identity`) and removes those members. Answers { sessions ended, members
 * left }; the caller repeats while members are left.
 * KEYS: none (the index is computed: it may need converting). ARGV: index
 * prefix, record prefix, identity, now, batch.
 */
export const destroySessionBatch = new LuaScript(INDEX + `
local identity = ARGV[3]
local key = index(identity)
redis.call('ZREMRANGEBYSCORE', key, '-inf', ARGV[4])
local members = redis.call('ZRANGE', key, 0, tonumber(ARGV[5]) - 1)
local ended = 0
for _, m in ipairs(members) do
  local record = record_prefix .. m
  if redis.call('HGET', record, 'i') == identity then ended = ended + redis.call('DEL', record) end
end
if #members > 0 then redis.call('ZREM', key, unpack(members)) end
return { ended, redis.call('ZCARD', key) }
`, 0)
