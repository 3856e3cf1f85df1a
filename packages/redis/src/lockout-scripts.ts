import { LuaScript } from './lua-script.js'

// A key's state is a hash under <prefix><key>: f = failures, l = locked
// until (ms), t = last failure (ms). The same rules as afterFailure() in
// @gatehouse/auth, run inside Redis so concurrent failures on several
// instances are all counted. Times come from the caller (its `now`); the
// key's expiry is relative (PEXPIRE), so it holds whatever the clock says.

/**
 * KEYS: state. ARGV: now, maxAttempts, backoff (s), resetAfter (s), cap (s).
 * Returns the milliseconds the key is now locked (0 when not).
 */
export const failLockout = new LuaScript(`
local now, max, backoff, reset_ms, cap = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]) * 1000, tonumber(ARGV[5])
local state = redis.call('HMGET', KEYS[1], 'f', 'l', 't')
local failures, locked, last = tonumber(state[1]), tonumber(state[2]) or 0, tonumber(state[3])
if failures ~= nil and (last == nil or now - last > reset_ms) then failures = nil; locked = 0 end
if failures ~= nil and locked > now then return locked - now end
failures = (failures or 0) + 1
locked = 0
if failures >= max then
  locked = math.floor(now + math.min(cap, backoff * 2 ^ math.min(failures - max, 30)) * 1000)
end
redis.call('HSET', KEYS[1], 'f', failures, 'l', locked, 't', now)
redis.call('PEXPIRE', KEYS[1], math.ceil(math.max(locked - now, reset_ms)) + 1000)
if locked > now then return locked - now end
return 0
`, 1)
