// The sessions of the session-list benchmark (session-list.ts): one user
// with 5 sessions, the one listed, and other users' sessions, 5 each,
// added column by column. Records are shaped as the session component
// writes them (a signed-in session with its client). The memory and Redis
// stores are filled through `set`; PostgreSQL in one `insert … select`
// per column in the store's layout (migration 0001), then VACUUM ANALYZE,
// as postgres.ts seeds (D-BENCH-06).
import { sha256 } from '@fastify-gatehouse/core'
import type { SessionRecord, SessionStore } from '@fastify-gatehouse/session'
import { identityOf } from './growth-seed.js'
import { sql } from './postgres-database.js'
import { inParallel } from './postgres-measure.js'

/** The user whose sessions are listed. */
export const LISTED = 'listed-user'
/** Their sessions. */
export const LISTED_SESSIONS = 5
/** Sessions of each other user. */
export const PER_OTHER_USER = 5

const HOURS_8 = 8 * 3600_000
const CLIENT = Object.freeze({ address: '203.0.113.9', agent: 'Firefox 133 on Linux' })

/** The key of the i-th other session, and of the listed user's j-th. */
export const otherKey = (i: number): string => sha256(`session-list other ${i}`)
export const listedKey = (j: number): string => sha256(`session-list listed ${j}`)

/** A signed-in session of `identity`, its deadline `spread` ms past 8 hours from now (so deadlines differ). */
export function sessionRecord (identity: string, spread: number): SessionRecord {
  const now = Date.now()
  return { identity, tags: ['staff'], data: { cart: [1, 2, 3] }, createdAt: now, expiresAt: now + HOURS_8 + spread, version: 1, via: 'password', stamp: sha256(`stamp ${identity}`).slice(0, 22), client: CLIENT }
}

/** The listed user's sessions, through `set`. */
export async function seedListed (store: SessionStore): Promise<void> {
  for (let j = 0; j < LISTED_SESSIONS; j++) {
    if (await store.set(listedKey(j), sessionRecord(LISTED, j), null) !== 'written') throw new Error('a session of the listed user was not written')
  }
}

/** Other sessions `from` … `to - 1`, through `set` (250 at a time for a store that answers promises). */
export async function seedOthers (store: SessionStore, from: number, to: number): Promise<void> {
  const indices = Array.from({ length: to - from }, (_, k) => from + k)
  await inParallel(indices, 250, async (i) => {
    if (await store.set(otherKey(i), sessionRecord(identityOf(Math.floor(i / PER_OTHER_USER)), i % 1000), null) !== 'written') throw new Error('another user\'s session was not written')
  })
}

/** Other sessions `from` … `to - 1` in `gatehouse.sessions`, in SQL, then VACUUM ANALYZE; as `seedOthers` writes them. */
export async function seedOthersSql (url: string, from: number, to: number): Promise<void> {
  if (to > from) {
    const now = Date.now()
    const json = `json_build_object('identity', 'user-' || lpad((i / ${PER_OTHER_USER})::text, 6, '0'), 'tags', json_build_array('staff'), 'data', json_build_object('cart', json_build_array(1, 2, 3)),
      'createdAt', $3::bigint, 'via', 'password', 'stamp', 'aaaaaaaaaaaaaaaaaaaaaa', 'client', json_build_object('address', '${CLIENT.address}', 'agent', '${CLIENT.agent}'))`
    await sql(url, [`insert into gatehouse.sessions (key, identity, record, expires_at, version)
      select 'other-' || i, 'user-' || lpad((i / ${PER_OTHER_USER})::text, 6, '0'), ${json}, $3::bigint + ${HOURS_8} + i % 1000, 1
      from generate_series($1::int, $2::int - 1) as i`, [from, to, now]])
  }
  await sql(url, 'vacuum analyze gatehouse.sessions')
}
