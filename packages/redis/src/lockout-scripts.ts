import { CLAIM_TTL_MS } from '@fastify-gatehouse/auth'
import { LuaScript } from './lua-script.js'

// A key's state is a hash under <prefix><key>: f = failures, l = locked
// until (ms), t = last failure (ms), q = when each claim in flight was made
// (ms, comma-separated, oldest first; at most maxAttempts of them). The same rules as afterClaim/afterFailure/afterRefund in
// @fastify-gatehouse/auth, run inside Redis so that attempts on several instances
// are claimed and settled atomically. Times come from the caller (its
// `now`); the key's expiry is relative (PEXPIRE), so it holds whatever the
// clock says. Every script takes KEYS: state; ARGV: now, maxAttempts,
// backoff (s), resetAfter (s), cap (s). D-LOCKOUT-03 (claims), D-REDIS-03 (times
// from the caller), D-LOCKOUT-06 (per-claim expiry, quiet time from the lock's end).

const PRELUDE = `
local now, max, backoff, reset_ms, cap = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]) * 1000, tonumber(ARGV[5])
local claim_ttl = ${CLAIM_TTL_MS}
local s = redis.call('HMGET', KEYS[1], 'f', 'l', 't', 'q')
local f, l, t = tonumber(s[1]) or 0, tonumber(s[2]) or 0, tonumber(s[3]) or 0
local q = {}
for at in string.gmatch(s[4] or '', '[^,]+') do
  local n = tonumber(at)
  if n ~= nil and now - n <= claim_ttl then q[#q + 1] = n end
end
if f > 0 and l <= now and now - math.max(t, l) > reset_ms then f = 0; l = 0 end
local function lock_seconds (n)
  if n < max then return 0 end
  return math.min(cap, backoff * 2 ^ math.min(n - max, 30))
end
local function save ()
  if f == 0 and #q == 0 and l <= now then redis.call('DEL', KEYS[1]); return end
  local claims = {}
  for i, at in ipairs(q) do claims[i] = string.format('%.0f', at) end
  redis.call('HSET', KEYS[1], 'f', f, 'l', string.format('%.0f', l), 't', string.format('%.0f', t), 'q', table.concat(claims, ','))
  -- Kept while locked, while a claim holds its place, and for resetAfter after the later of the lock's end and the last failure.
  redis.call('PEXPIRE', KEYS[1], math.ceil(math.max(l - now, 0) + math.max(reset_ms, claim_ttl)) + 1000)
end
`

/** Returns 0 when the attempt may go ahead (claimed), else the seconds to wait (not counted). */
export const claimAttempt = new LuaScript(PRELUDE + `
if l > now then return math.ceil((l - now) / 1000) end
local room = 1
if f < max then room = max - f end
if #q >= room then return math.max(1, math.ceil(lock_seconds(f + #q))) end
q[#q + 1] = now
save()
return 0
`, 1)

/** Settles a claim as a failure; returns the milliseconds the key is now locked (0 when not). */
export const recordFailure = new LuaScript(PRELUDE + `
table.remove(q, 1)
f = f + 1
t = now
local seconds = lock_seconds(f)
if seconds > 0 then l = math.max(l, math.floor(now + seconds * 1000)) end
save()
if l > now then return l - now end
return 0
`, 1)

/** Settles a claim as a success, keeping the failures. */
export const refundAttempt = new LuaScript(PRELUDE + `
table.remove(q, 1)
save()
return 0
`, 1)
