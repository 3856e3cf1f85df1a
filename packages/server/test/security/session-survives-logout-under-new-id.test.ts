// Issue 25, item 9 (the known limits of docs/security.md): a session.regenerate()
// racing a logout survived under its new id, and so did a session revoked
// while the app regenerated its id: the move to the new key landed before
// the destroy of the old one, which found nothing. A regenerated id now
// leaves its old key naming the new one for destroy (D-SESSION-28), in every
// store; dozens of pairs over real sockets, one instance and two sharing a store.
import { test, type Test } from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import { middlewareChain } from '@fastify-gatehouse/core'
import { errorsPlugin } from '@fastify-gatehouse/errors'
import { authPlugin } from '@fastify-gatehouse/auth'
import { MemorySessionStore, sessionPlugin, type SessionStore } from '@fastify-gatehouse/session'
import { RedisSessionStore } from '@fastify-gatehouse/redis'
import { migrate, PostgresSessionStore } from '@fastify-gatehouse/postgres'
import { cleanPrefix, needRedis, PATIENT_TIMEOUTS, REDIS_URL, testPrefix } from '../../../redis/test/helpers/redis.js'
import { needPostgres, testDatabase } from '../../../postgres/test/helpers/postgres.js'
import { hangSignal } from '../../../../test-helpers/wait.js'
import { accountServer } from '../helpers/account.js'

const redis = await needRedis()
const postgres = await needPostgres()
const PAIRS = 30

/** Per pair: the logout (or revoke) has loaded what it needs; the regenerate's response is out. */
interface Pair { loaded: () => void, regenerated: Promise<void>, done: () => void }
const pairs = new Map<string, Pair>()

function newPair (name: string): { loaded: Promise<void> } {
  let loaded!: () => void
  let done!: () => void
  const loadedPromise = new Promise<void>((resolve) => { loaded = resolve })
  const regenerated = new Promise<void>((resolve) => { done = resolve })
  pairs.set(name, { loaded, regenerated, done })
  return { loaded: loadedPromise }
}

/** An instance on a real port with the session component on `store` and routes that drive it. */
async function instance (t: Test, store: SessionStore): Promise<string> {
  const app: FastifyInstance = Fastify()
  t.teardown(() => app.close())
  await middlewareChain(app, { middleware: { session: { store } } }, { components: [errorsPlugin, authPlugin, sessionPlugin] })
  app.post<{ Body: { identity: string } }>('/login', async (req) => { req.scope.session!.login(req.body.identity, 'member'); return { ok: true } })
  app.get('/private', { config: { authRule: 'member' } }, async (req) => ({ hello: req.scope.auth?.identity }))
  app.post<{ Querystring: { pair?: string } }>('/regenerate', {
    onResponse: async (req) => { if (req.query.pair !== undefined) pairs.get(req.query.pair)?.done() }
  }, async (req) => {
    req.scope.session!.set('n', 1)
    req.scope.session!.regenerate()
    return { ok: true }
  })
  // A logout that has loaded the session, then (gated) waits for the regenerate to be written.
  app.post<{ Querystring: { pair?: string } }>('/logout', async (req) => {
    const pair = req.query.pair === undefined ? undefined : pairs.get(req.query.pair)
    if (pair !== undefined) { pair.loaded(); await pair.regenerated }
    req.scope.session!.logout()
    return { status: 'ok' }
  })
  // Another device revokes the identity's sessions: listed first (as the
  // account's list shows them), destroyed after the regenerate is written.
  app.post<{ Querystring: { pair: string }, Body: { identity: string } }>('/revoke', async (req) => {
    const listed = await app.sessionStore.listFor(req.body.identity, 10)
    const pair = pairs.get(req.query.pair)!
    pair.loaded()
    await pair.regenerated
    for (const entry of listed) await app.sessionStore.destroy(entry.key)
    return { revoked: listed.length }
  })
  return await app.listen({ host: '127.0.0.1', port: 0 })
}

async function post (base: string, path: string, cookie?: string, body?: unknown): Promise<Response> {
  return await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { ...(cookie === undefined ? {} : { cookie }), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: hangSignal()
  })
}

function cookieOf (response: Response): string | undefined {
  const line = response.headers.getSetCookie().find((l) => l.startsWith('session_id=') && !l.startsWith('session_id=;'))
  return line?.split(';')[0]
}

async function opens (base: string, cookie: string): Promise<number> {
  return (await fetch(`${base}/private`, { headers: { cookie }, signal: hangSignal() })).status
}

/**
 * Dozens of pairs at once, each racing one way: `loaded-first` (the logout
 * or revoke has loaded the old id, then the move lands, then the destroy),
 * `moved-first` (the move lands, then a logout with the old id), and
 * `free` (both sent together, no gate). `a` makes the regenerate, `b`
 * the logout or revoke. Every new id must open nothing.
 */
async function race (t: Test, a: string, b: string, label: string): Promise<void> {
  const kinds = ['loaded-first', 'moved-first', 'free', 'revoke'] as const
  const results = await Promise.all(Array.from({ length: PAIRS }, async (_v, i) => {
    const kind = kinds[i % kinds.length]!
    const name = `${label}-${i}`
    const identity = `user-${name}`
    const old = cookieOf(await post(a, '/login', undefined, { identity }))!
    let regenerated: Response
    if (kind === 'free') {
      const [regen] = await Promise.all([post(a, '/regenerate', old), post(b, '/logout', old)])
      regenerated = regen
    } else if (kind === 'moved-first') {
      regenerated = await post(a, '/regenerate', old)
      await post(b, '/logout', old)
    } else {
      const gate = newPair(name)
      const ended = kind === 'revoke'
        ? post(b, `/revoke?pair=${name}`, undefined, { identity })
        : post(b, `/logout?pair=${name}`, old)
      await gate.loaded
      regenerated = await post(a, `/regenerate?pair=${name}`, old)
      const answer = await ended
      if (answer.status !== 200) return `${kind}: logout answered ${answer.status}`
    }
    const fresh = cookieOf(regenerated)
    const statuses = [await opens(a, old), await opens(b, old), ...(fresh === undefined ? [] : [await opens(a, fresh), await opens(b, fresh)])]
    return `${kind}: ${statuses.every((s) => s === 403) ? 'ended' : `survived (${statuses.join(' ')}, new id ${fresh === undefined ? 'not' : ''} set)`}`
  }))
  const survived = results.filter((r) => !r.endsWith('ended'))
  t.same(survived, [], `${label}: ${PAIRS} pairs, none survives under its new id`)
  t.ok(results.some((r) => r.startsWith('loaded-first')) && results.some((r) => r.startsWith('revoke')), 'every kind of race ran')
}

test('regenerate racing logout or revoke, one instance, MemorySessionStore', async (t) => {
  const base = await instance(t, new MemorySessionStore())
  await race(t, base, base, 'memory')
})

test('regenerate racing logout or revoke, two instances sharing Redis', redis, async (t) => {
  const prefix = testPrefix('regen')
  const stores = [await RedisSessionStore.connect({ url: REDIS_URL, ...PATIENT_TIMEOUTS, prefix }), await RedisSessionStore.connect({ url: REDIS_URL, ...PATIENT_TIMEOUTS, prefix })]
  t.teardown(async () => { for (const store of stores) await store.close(); await cleanPrefix(prefix) })
  await race(t, await instance(t, stores[0]!), await instance(t, stores[1]!), 'redis')
})

test('regenerate racing logout or revoke, two instances sharing PostgreSQL', postgres, async (t) => {
  const db = await testDatabase()
  t.teardown(db.drop)
  await migrate({ url: db.url })
  const stores = [await PostgresSessionStore.connect({ url: db.url, poolSize: 4 }), await PostgresSessionStore.connect({ url: db.url, poolSize: 4 })]
  t.teardown(async () => { for (const store of stores) await store.close() })
  await race(t, await instance(t, stores[0]!), await instance(t, stores[1]!), 'postgres')
})

/** A memory store whose next destroy, once armed, waits until the test opens it. */
class HeldDestroys extends MemorySessionStore {
  #held: { entered: () => void, opened: Promise<void> } | undefined
  arm (): { entered: Promise<void>, open: () => void } {
    let entered!: () => void
    let open!: () => void
    const enteredPromise = new Promise<void>((resolve) => { entered = resolve })
    this.#held = { entered, opened: new Promise<void>((resolve) => { open = resolve }) }
    return { entered: enteredPromise, open }
  }

  override destroy (key: string): void {
    const held = this.#held
    if (held === undefined) { super.destroy(key); return }
    this.#held = undefined
    held.entered()
    // The interface allows a promise; the account's revoke awaits it.
    return held.opened.then(() => { super.destroy(key) }) as unknown as void
  }
}

test('the account\'s revoke of another device\'s session, while that device regenerates its id (real socket)', async (t) => {
  const store = new HeldDestroys()
  const server = await accountServer({
    sessionStore: store,
    routes: (app) => { app.post('/test/regenerate', async (request) => { request.scope.session!.regenerate(); return { ok: true } }) }
  })
  t.teardown(() => server.close())
  const base = await server.serve('127.0.0.1', 0)
  const signIn = async (): Promise<string> => cookieOf(await post(base, '/_server/login', undefined, { identity: 'alice', password: 'alice-pass' }))!
  const [laptop, phone] = [await signIn(), await signIn()]
  const listed = await (await fetch(`${base}/_server/account/sessions`, { headers: { cookie: laptop }, signal: hangSignal() })).json() as { sessions: Array<{ handle: string, current: boolean }> }
  const phoneHandle = listed.sessions.find((s) => !s.current)!.handle

  const held = store.arm()
  const revoke = fetch(`${base}/_server/account/sessions/${phoneHandle}`, { method: 'DELETE', headers: { cookie: laptop }, signal: hangSignal() })
  await held.entered
  const regenerated = await post(base, '/test/regenerate', phone)
  t.equal(regenerated.status, 200)
  const renewed = cookieOf(regenerated)
  t.ok(renewed !== undefined && renewed !== phone, 'the phone got a new id while the revoke was on its way')
  held.open()
  const answer = await revoke
  t.equal(answer.status, 200)
  t.same(await answer.json(), { status: 'ok' })
  const whoami = async (cookie: string): Promise<unknown> => await (await fetch(`${base}/whoami`, { headers: { cookie }, signal: hangSignal() })).json()
  t.same(await whoami(renewed!), { auth: null }, 'the revoked session does not live on under its new id')
  t.same(await whoami(phone), { auth: null })
  t.match(await whoami(laptop), { auth: { identity: 'alice' } }, 'the laptop is still signed in')
})
