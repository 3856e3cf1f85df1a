// Issue 13, item 3: logout is undone by a session write in flight. A request
// that loaded the session before a logout must not write it back after.
import { test } from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import { middlewareChain } from '@fastify-gatehouse/core'
import { MemorySessionStore, sessionKey, type SessionStore } from '@fastify-gatehouse/session'
import { components, sessionCookie } from '../helpers/build.js'
import { hangSignal, waitUntil } from '../../../../test-helpers/wait.js'

/** A gate a handler waits at, opened by the test. */
function gate (): { entered: Promise<void>, open: () => void, wait: () => Promise<void> } {
  let enter!: () => void
  let open!: () => void
  const entered = new Promise<void>((resolve) => { enter = resolve })
  const opened = new Promise<void>((resolve) => { open = resolve })
  return { entered, open, wait: async () => { enter(); await opened } }
}

/** Handlers of /slow-put that have loaded their session, per app. */
const entered = new WeakMap<FastifyInstance, { count: number }>()

async function build (store: SessionStore, held?: ReturnType<typeof gate>): Promise<FastifyInstance> {
  const app = Fastify()
  const counter = { count: 0 }
  entered.set(app, counter)
  await middlewareChain(app, { middleware: { session: { store } } }, { components })
  app.post<{ Body: { identity: string } }>('/login', async (req) => { req.scope.session!.login(req.body.identity, 'member'); return { ok: true } })
  app.post('/logout', async (req) => { req.scope.session!.logout(); return { ok: true } })
  app.get('/private', { authRule: 'member' }, async (req) => ({ hello: req.scope.auth?.identity }))
  // Loads the session, waits (a slow handler), then writes to it.
  app.post<{ Body: { value: unknown } }>('/slow-put', async (req) => {
    counter.count++
    if (held !== undefined) await held.wait()
    // Work of random length, so the writes interleave with the logout.
    else await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 60))
    req.scope.session!.set('k', req.body.value)
    return { ok: true }
  })
  await app.ready()
  return app
}

test('a write that loaded the session before logout does not bring it back (deterministic)', async (t) => {
  const store = new MemorySessionStore()
  const held = gate()
  const app = await build(store, held)
  t.teardown(() => app.close())
  const id = sessionCookie(await app.inject({ method: 'POST', url: '/login', payload: { identity: 'alice' } }))!
  const cookie = `session_id=${id}`
  t.equal((await app.inject({ url: '/private', headers: { cookie } })).statusCode, 200, 'signed in')

  const slow = app.inject({ method: 'POST', url: '/slow-put', payload: { value: 1 }, headers: { cookie } })
  await held.entered
  const out = await app.inject({ method: 'POST', url: '/logout', headers: { cookie } })
  t.equal(out.statusCode, 200)
  t.equal(store.get(sessionKey(id)), null, 'logout destroyed the record')
  held.open()
  const late = await slow
  t.equal(late.statusCode, 200, 'the late request keeps its response')
  t.same(late.json(), { ok: true })
  t.equal(late.headers['set-cookie'], undefined, 'and sets no cookie: the dead id opens nothing, and a clear could delete a newer one')
  t.equal(store.get(sessionKey(id)), null, 'the record stays destroyed')
  const after = await app.inject({ url: '/private', headers: { cookie } })
  t.equal(after.statusCode, 403, 'the old cookie opens nothing')
  t.equal(after.json().code, 'GATEHOUSE_CORE_FORBIDDEN')
})

test('dozens of writes racing a logout over real sockets: the session stays destroyed', async (t) => {
  const store = new MemorySessionStore()
  const app = await build(store)
  t.teardown(() => app.close())
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  for (let round = 0; round < 5; round++) {
    const signedIn = await fetch(`${base}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ identity: 'alice' }) })
    const cookie = signedIn.headers.getSetCookie()[0]!.split(';')[0]!
    const put = (i: number) => fetch(`${base}/slow-put`, { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: JSON.stringify({ value: i }), signal: hangSignal() })
    const counter = entered.get(app)!
    counter.count = 0
    const before = Array.from({ length: 20 }, (_v, i) => put(i))
    // The logout goes out once some of them hold the loaded session.
    await waitUntil(() => counter.count >= 5, { what: 'five writes holding the loaded session' })
    const out = fetch(`${base}/logout`, { method: 'POST', headers: { cookie }, signal: hangSignal() })
    const after = Array.from({ length: 20 }, (_v, i) => put(20 + i))
    const answers = await Promise.all([...before, out, ...after])
    t.same(answers.map((r) => r.status).filter((s) => s !== 200), [], `round ${round}: every request answered 200`)
    t.equal(store.get(sessionKey(cookie.slice('session_id='.length))), null, `round ${round}: the record stays destroyed`)
    const check = await fetch(`${base}/private`, { headers: { cookie } })
    t.equal(check.status, 403, `round ${round}: the old cookie opens nothing`)
  }
})

test('a regenerate in flight does not carry a logged-out session to a new id', async (t) => {
  const store = new MemorySessionStore()
  const held = gate()
  const regen = Fastify()
  await middlewareChain(regen, { middleware: { session: { store } } }, { components })
  regen.post('/login', async (req) => { req.scope.session!.login('alice', 'member'); return { ok: true } })
  regen.post('/logout', async (req) => { req.scope.session!.logout(); return { ok: true } })
  regen.post('/elevate', async (req) => { await held.wait(); req.scope.session!.regenerate(); return { ok: true } })
  regen.get('/private', { authRule: 'member' }, async () => ({ ok: true }))
  t.teardown(() => regen.close())
  const id = sessionCookie(await regen.inject({ method: 'POST', url: '/login' }))!
  const cookie = `session_id=${id}`
  const elevate = regen.inject({ method: 'POST', url: '/elevate', headers: { cookie } })
  await held.entered
  t.equal((await regen.inject({ method: 'POST', url: '/logout', headers: { cookie } })).statusCode, 200)
  held.open()
  const late = await elevate
  t.equal(late.statusCode, 200)
  t.equal(late.headers['set-cookie'], undefined, 'no new id is handed out')
  t.equal(store.size, 0, 'nothing was written under any id')
})

test('logout then a write in the same request: the old session is still destroyed', async (t) => {
  const store = new MemorySessionStore()
  const app = Fastify()
  await middlewareChain(app, { middleware: { session: { store } } }, { components })
  app.post('/login', async (req) => { req.scope.session!.login('alice', 'member'); return { ok: true } })
  app.post('/logout-and-note', async (req) => { req.scope.session!.logout(); req.scope.session!.set('note', 'bye'); return { ok: true } })
  app.get('/private', { authRule: 'member' }, async () => ({ ok: true }))
  t.teardown(() => app.close())
  const id = sessionCookie(await app.inject({ method: 'POST', url: '/login' }))!
  const res = await app.inject({ method: 'POST', url: '/logout-and-note', headers: { cookie: `session_id=${id}` } })
  const fresh = sessionCookie(res)
  t.ok(fresh !== undefined && fresh !== id, 'a new, anonymous session')
  t.equal(store.get(sessionKey(id)), null, 'the signed-in one is gone')
  t.equal((await app.inject({ url: '/private', headers: { cookie: `session_id=${id}` } })).statusCode, 403)
  t.match(store.get(sessionKey(fresh!)), { identity: null, data: { note: 'bye' } })
})
