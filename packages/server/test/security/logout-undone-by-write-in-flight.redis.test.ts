// Issue 13, item 3: logout is undone by a session write in flight, with
// RedisSessionStore: on one instance, and on two instances sharing Redis
// (logout on B while A has requests in flight that write the session).
import { test, type Test } from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import { middlewareChain } from '@fastify-gatehouse/core'
import { allComponents } from '@fastify-gatehouse/server'
import { sessionKey } from '@fastify-gatehouse/session'
import { RedisSessionStore } from '@fastify-gatehouse/redis'
import { cleanPrefix, needRedis, PATIENT_TIMEOUTS, REDIS_URL, testPrefix } from '../../../redis/test/helpers/redis.js'
import { aliceStore, get, login, sessionCookie, startInstance, type Instance } from '../helpers/redis-servers.js'
import { hangSignal, waitUntil } from '../../../../test-helpers/wait.js'

const redis = await needRedis()

/** Polls `what` until it holds; fails at the hang ceiling. */
async function until (what: () => boolean): Promise<void> {
  await waitUntil(what)
}

/** A route that loads the session, works for a random while, then writes to it; counts the loads. */
function slowWrites (app: FastifyInstance, loaded: { count: number }): void {
  app.post<{ Body: { value: unknown } }>('/note', async (req) => {
    loaded.count++
    await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 60))
    req.scope.session!.set('note', req.body.value)
    return { ok: true }
  })
}

async function store (t: Test, prefix: string): Promise<RedisSessionStore> {
  const sessions = new RedisSessionStore({ url: REDIS_URL, ...PATIENT_TIMEOUTS, prefix })
  t.teardown(() => sessions.close())
  await sessions.ready()
  return sessions
}

const note = (base: string, cookie: string, value: number): Promise<Response> => fetch(`${base}/note`, {
  method: 'POST',
  headers: { cookie, 'content-type': 'application/json' },
  body: JSON.stringify({ value }),
  signal: hangSignal()
})

test('RedisSessionStore: a write that loaded the session before logout does not bring it back', redis, async (t) => {
  const prefix = testPrefix('sess')
  t.teardown(() => cleanPrefix(prefix))
  const sessions = await store(t, prefix)
  const app = Fastify()
  t.teardown(() => app.close())
  await middlewareChain(app, { middleware: { session: { store: sessions } } }, { components: allComponents })
  let open!: () => void
  const opened = new Promise<void>((resolve) => { open = resolve })
  const loaded = { count: 0 }
  app.post('/login', async (req) => { req.scope.session!.login('alice', 'member'); return { ok: true } })
  app.post('/logout', async (req) => { req.scope.session!.logout(); return { ok: true } })
  app.post('/held', async (req) => { loaded.count++; await opened; req.scope.session!.set('k', 1); return { ok: true } })
  app.get('/private', { authRule: 'member' }, async () => ({ ok: true }))
  slowWrites(app, loaded)
  const base = await app.listen({ port: 0, host: '127.0.0.1' })

  // Deterministic: the request is held after loading until the logout is done.
  const cookie = sessionCookie(await fetch(`${base}/login`, { method: 'POST' }))
  const held = fetch(`${base}/held`, { method: 'POST', headers: { cookie }, signal: hangSignal() })
  await until(() => loaded.count === 1)
  t.equal((await fetch(`${base}/logout`, { method: 'POST', headers: { cookie } })).status, 200)
  open()
  const late = await held
  t.equal(late.status, 200, 'the late request keeps its response')
  t.same(late.headers.getSetCookie(), [], 'and sets no cookie (a clear could delete a newer one)')
  t.equal(await sessions.get(sessionKey(cookie.slice('session_id='.length))), null, 'the record stays destroyed')
  t.equal((await fetch(`${base}/private`, { headers: { cookie } })).status, 403)

  // Racing: dozens of writes around one logout, five rounds.
  for (let round = 0; round < 5; round++) {
    const racing = sessionCookie(await fetch(`${base}/login`, { method: 'POST' }))
    loaded.count = 0
    const before = Array.from({ length: 20 }, (_v, i) => note(base, racing, i))
    await until(() => loaded.count >= 5)
    const out = fetch(`${base}/logout`, { method: 'POST', headers: { cookie: racing }, signal: hangSignal() })
    const after = Array.from({ length: 20 }, (_v, i) => note(base, racing, 20 + i))
    const answers = await Promise.all([...before, out, ...after])
    t.same(answers.map((r) => r.status).filter((s) => s !== 200), [], `round ${round}: every request answered 200`)
    t.equal(await sessions.get(sessionKey(racing.slice('session_id='.length))), null, `round ${round}: the record stays destroyed`)
    t.equal((await fetch(`${base}/private`, { headers: { cookie: racing } })).status, 403, `round ${round}: the old cookie opens nothing`)
  }
})

test('two instances sharing Redis: logout on B while A has writes in flight; the session stays ended on both', redis, async (t) => {
  const prefix = testPrefix('sess')
  t.teardown(() => cleanPrefix(prefix))
  const users = await aliceStore()
  const loaded = { count: 0 }
  const instances: Instance[] = []
  t.teardown(async () => { for (const instance of instances) await instance.server.close() })
  const stores = [await store(t, prefix), await store(t, prefix)]
  for (const sessionStore of stores) instances.push(await startInstance({ sessionStore, users, routes: (app) => slowWrites(app, loaded) }))
  const [a, b] = instances as [Instance, Instance]
  for (let round = 0; round < 5; round++) {
    const signedIn = await login(a.base, 'alice', 'alice-pass')
    t.equal(signedIn.status, 200)
    const cookie = sessionCookie(signedIn)
    t.equal((await get(b.base, '/orders', { cookie })).status, 200, `round ${round}: B knows the session`)
    loaded.count = 0
    const onA = Array.from({ length: 24 }, (_v, i) => note(a.base, cookie, i))
    await until(() => loaded.count >= 6)
    const out = await fetch(`${b.base}/_server/logout`, { method: 'POST', headers: { cookie }, signal: hangSignal() })
    t.equal(out.status, 200, `round ${round}: logged out on B`)
    const answers = await Promise.all(onA)
    t.same(answers.map((r) => r.status).filter((s) => s !== 200), [], `round ${round}: A answered every write 200`)
    t.equal(await stores[0]!.get(sessionKey(cookie.slice('session_id='.length))), null, `round ${round}: no record in Redis`)
    for (const [name, instance] of [['A', a], ['B', b]] as const) {
      t.equal((await get(instance.base, '/orders', { cookie })).status, 403, `round ${round}: the old cookie opens nothing on ${name}`)
      t.same(await (await get(instance.base, '/me', { cookie })).json(), { auth: null }, `round ${round}: anonymous on ${name}`)
    }
  }
})
