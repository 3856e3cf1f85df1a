// lastSeenAt: when a session was last used, worked back from its idle
// deadline (every use moves it to use + idleTtl), never before the session
// began and never after now. D-SESSION-19.
import { test } from 'tap'
import { lastSeenAt } from '@fastify-gatehouse/session'

const HOUR = 3_600_000
const created = 1_700_000_000_000

test('the last use is the idle deadline minus idleTtl', async (t) => {
  const now = created + 5 * HOUR
  t.equal(lastSeenAt({ createdAt: created, expiresAt: created + 2 * HOUR }, 3600, now), created + HOUR, 'used an hour after it began, idle for an hour')
  t.equal(lastSeenAt({ createdAt: created, expiresAt: now + 1800_000 }, 3600, now), now - 1800_000, 'used half an hour ago')
  t.equal(lastSeenAt({ createdAt: created, expiresAt: created + 600_000 }, 600, now), created, 'never used after it began')
})

test('clamped: never before the session began, never after now', async (t) => {
  const now = created + HOUR
  t.equal(lastSeenAt({ createdAt: created, expiresAt: created + 1000 }, 3600, now), created, 'a deadline cut short by the absolute lifetime reads as the start, not before it')
  t.equal(lastSeenAt({ createdAt: created, expiresAt: now + 2 * HOUR }, 3600, now), now, 'a deadline further off than idleTtl (the setting was shortened since) reads as now')
  t.equal(lastSeenAt({ createdAt: created, expiresAt: now + HOUR }, 3600, now), now, 'used just now')
})

test('now defaults to the clock', async (t) => {
  const before = Date.now()
  const seen = lastSeenAt({ createdAt: before - HOUR, expiresAt: before + 10 * HOUR }, 3600)
  t.ok(seen >= before && seen <= Date.now(), 'a deadline beyond idleTtl reads as now, the clock\'s')
})
