// The session component on PostgresSessionStore, over real sockets: one
// instance under dozens of parallel writes to one session, and two
// instances sharing the store (sign in on one, use and end it on the other).
import { test, type Test } from 'tap'
import Fastify from 'fastify'
import { middlewareChain } from '@fastify-gatehouse/core'
import { errorsPlugin } from '@fastify-gatehouse/errors'
import { sessionKey, sessionPlugin } from '@fastify-gatehouse/session'
import { PostgresSessionStore } from '../src/index.js'
import { hangSignal, waitUntil } from '../../../test-helpers/wait.js'
import { needPostgres } from './helpers/postgres.js'
import { migratedDatabase, PATIENT } from './helpers/stores.js'

const postgres = await needPostgres()

interface Instance { base: string, loaded: { count: number } }

/** A Fastify app with the session component on `store`, listening on loopback; closed at the end of `t`. */
async function instance (t: Test, store: PostgresSessionStore): Promise<Instance> {
  const app = Fastify()
  t.teardown(() => app.close())
  await middlewareChain(app, { middleware: { session: { store } } }, { components: [errorsPlugin, sessionPlugin] })
  const loaded = { count: 0 }
  app.post('/login', async (req) => { req.scope.session!.login('alice', 'member'); return { ok: true } })
  app.post('/logout', async (req) => { req.scope.session!.logout(); return { ok: true } })
  app.get('/whoami', async (req) => ({ identity: req.scope.auth?.identity ?? null }))
  // Loads the session, works a random while (so requests overlap), then writes one value.
  app.post<{ Body: { name: string, value: unknown } }>('/note', async (req) => {
    loaded.count++
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 40))
    req.scope.session!.set(req.body.name, req.body.value)
    return { ok: true }
  })
  app.get<{ Querystring: { names: string } }>('/notes', async (req) => Object.fromEntries(req.query.names.split(',').map((name) => [name, req.scope.session!.get(name) ?? null])))
  return { base: await app.listen({ port: 0, host: '127.0.0.1' }), loaded }
}

const cookieOf = (res: Response): string => res.headers.getSetCookie().find((c) => c.startsWith('session_id='))!.split(';')[0]!
const keyOf = (cookie: string): string => sessionKey(cookie.slice('session_id='.length))
const note = async (base: string, cookie: string, name: string, value: unknown): Promise<Response> => await fetch(`${base}/note`, {
  method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: JSON.stringify({ name, value }), signal: hangSignal()
})
const whoami = async (base: string, cookie: string): Promise<unknown> => await (await fetch(`${base}/whoami`, { headers: { cookie }, signal: hangSignal() })).json()

test('one instance: dozens of parallel writes to one session all land; logout ends it', postgres, async (t) => {
  const db = await migratedDatabase(t)
  const store = await PostgresSessionStore.connect({ url: db.url, ...PATIENT, poolSize: 6 })
  t.teardown(() => store.close())
  const { base } = await instance(t, store)
  const signedIn = await fetch(`${base}/login`, { method: 'POST', signal: hangSignal() })
  t.equal(signedIn.status, 200)
  const cookie = cookieOf(signedIn)
  const names = Array.from({ length: 30 }, (_v, i) => `n${i}`)
  const answers = await Promise.all(names.map(async (name, i) => await note(base, cookie, name, i)))
  t.same(answers.map((r) => r.status), names.map(() => 200), 'thirty parallel writes answered 200')
  const notes = await (await fetch(`${base}/notes?names=${names.join(',')}`, { headers: { cookie } })).json()
  t.same(notes, Object.fromEntries(names.map((name, i) => [name, i])), 'each one\'s value is in the session (conflicts were re-based, none lost)')
  t.match(await store.get(keyOf(cookie)), { identity: 'alice', version: 31 }, 'one write each after the sign-in')
  t.same(await whoami(base, cookie), { identity: 'alice' })

  const out = await fetch(`${base}/logout`, { method: 'POST', headers: { cookie } })
  t.equal(out.status, 200)
  t.match(out.headers.get('set-cookie'), /^session_id=;/, 'the cookie is cleared')
  t.equal(await store.get(keyOf(cookie)), null, 'the row is gone')
  t.same(await whoami(base, cookie), { identity: null }, 'the old cookie opens nothing')
  t.equal((await db.pool.query('select count(*)::int as n from gatehouse.sessions')).rows[0].n, 0)
})

test('two instances sharing the store: signed in on A, used on B; logout on one ends it on both, writes in flight or not', postgres, async (t) => {
  const db = await migratedDatabase(t)
  const stores = [
    await PostgresSessionStore.connect({ url: db.url, ...PATIENT, poolSize: 4 }),
    await PostgresSessionStore.connect({ url: db.url, ...PATIENT, poolSize: 4 })
  ] as const
  t.teardown(async () => { for (const store of stores) await store.close() })
  const a = await instance(t, stores[0])
  const b = await instance(t, stores[1])

  const cookie = cookieOf(await fetch(`${a.base}/login`, { method: 'POST' }))
  t.same(await whoami(b.base, cookie), { identity: 'alice' }, 'B knows the session A signed in')
  t.equal((await note(b.base, cookie, 'from', 'B')).status, 200)
  t.same(await (await fetch(`${a.base}/notes?names=from`, { headers: { cookie } })).json(), { from: 'B' }, 'A reads what B wrote')
  t.equal((await fetch(`${a.base}/logout`, { method: 'POST', headers: { cookie } })).status, 200)
  t.same(await whoami(b.base, cookie), { identity: null }, 'logout on A ends it on B')

  for (let round = 0; round < 5; round++) {
    const racing = cookieOf(await fetch(`${a.base}/login`, { method: 'POST' }))
    b.loaded.count = 0
    const onB = Array.from({ length: 24 }, async (_v, i) => await note(b.base, racing, `n${i}`, i))
    await waitUntil(() => b.loaded.count >= 6, { what: 'B to load the session for some writes' })
    const out = await fetch(`${a.base}/logout`, { method: 'POST', headers: { cookie: racing }, signal: hangSignal() })
    t.equal(out.status, 200, `round ${round}: logged out on A`)
    const answers = await Promise.all(onB)
    t.same(answers.map((r) => r.status).filter((s) => s !== 200), [], `round ${round}: B answered every write 200`)
    t.equal(await stores[1].get(keyOf(racing)), null, `round ${round}: no row`)
    t.same(await whoami(a.base, racing), { identity: null }, `round ${round}: anonymous on A`)
    t.same(await whoami(b.base, racing), { identity: null }, `round ${round}: anonymous on B`)
  }
})

test('a database that is away: the session component answers 503, and the session is there again after', postgres, async (t) => {
  const db = await migratedDatabase(t)
  const store = await PostgresSessionStore.connect({ url: db.url, connectTimeout: 60_000, statementTimeout: 300, sweepInterval: 0 })
  t.teardown(() => store.close())
  const { base } = await instance(t, store)
  const cookie = cookieOf(await fetch(`${base}/login`, { method: 'POST' }))
  // Another transaction holds the session's row: the write waits past statementTimeout.
  const holder = await db.pool.connect()
  t.teardown(async () => { await holder.query('rollback').catch(() => {}); holder.release() })
  await holder.query('begin')
  await holder.query('select * from gatehouse.sessions where key = $1 for update', [keyOf(cookie)])
  const res = await note(base, cookie, 'n', 1)
  t.equal(res.status, 503)
  t.equal(res.headers.get('retry-after'), '5')
  t.match(await res.json(), { code: 'GATEHOUSE_SESSION_STORE_UNAVAILABLE' })
  await holder.query('rollback')
  t.same(await whoami(base, cookie), { identity: 'alice' }, 'not a logout: the session is there once the database answers')
  t.equal((await note(base, cookie, 'n', 2)).status, 200)
})
