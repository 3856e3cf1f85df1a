// Issue 13, item 3: two requests that loaded the same session version both
// write it. The store takes one; the other is re-based on what was written
// (this request's own values on top: the last write of a name wins), and
// the identity and tags it carried can never be restored by it.
import { test } from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import { middlewareChain } from '@fastify-gatehouse/core'
import { MemorySessionStore, sessionKey, type SessionRecord, type SessionStore, type SessionWriteCondition, type SessionWriteResult } from '@fastify-gatehouse/session'
import { components, sessionCookie } from '../helpers/build.js'
import { waitUntil } from '../../../../test-helpers/wait.js'

async function build (store: SessionStore): Promise<{ app: FastifyInstance, release: () => void, entered: () => number }> {
  const app = Fastify()
  await middlewareChain(app, { middleware: { session: { store } } }, { components })
  let open!: () => void
  const opened = new Promise<void>((resolve) => { open = resolve })
  let count = 0
  app.post<{ Body: { identity: string } }>('/login', async (req) => { req.scope.session!.login(req.body.identity, 'member'); return { ok: true } })
  app.post<{ Params: { name: string }, Body: { value: unknown } }>('/preset/:name', async (req) => { req.scope.session!.set(req.params.name, req.body.value); return { ok: true } })
  // Sets one name after waiting for the test: every caller has loaded the same version by then.
  app.post<{ Params: { name: string }, Body: { value: unknown } }>('/set/:name', async (req) => {
    count++
    await opened
    if (req.body.value === null) req.scope.session!.delete(req.params.name)
    else req.scope.session!.set(req.params.name, req.body.value)
    return { ok: true }
  })
  app.get('/whoami', async (req) => ({ auth: req.scope.auth, data: { a: req.scope.session!.get('a') ?? null, b: req.scope.session!.get('b') ?? null } }))
  await app.ready()
  return { app, release: open, entered: () => count }
}

/** Polls `what` until it holds; fails at the hang ceiling. */
async function until (what: () => boolean): Promise<void> {
  await waitUntil(what)
}

test('writes of different names from one loaded version all land', async (t) => {
  const store = new MemorySessionStore()
  const { app, release, entered } = await build(store)
  t.teardown(() => app.close())
  const id = sessionCookie(await app.inject({ method: 'POST', url: '/login', payload: { identity: 'alice' } }))!
  const cookie = `session_id=${id}`
  await app.inject({ method: 'POST', url: '/preset/b', payload: { value: 'old' }, headers: { cookie } })
  const writes = [
    app.inject({ method: 'POST', url: '/set/a', payload: { value: 1 }, headers: { cookie } }),
    app.inject({ method: 'POST', url: '/set/b', payload: { value: null }, headers: { cookie } })
  ]
  await until(() => entered() >= 2)
  release()
  const answers = await Promise.all(writes)
  t.same(answers.map((r) => r.statusCode), [200, 200])
  t.same(answers.map((r) => r.headers['set-cookie']), [undefined, undefined], 'the same id: no cookie to send')
  const after = await app.inject({ url: '/whoami', headers: { cookie } })
  t.same(after.json(), { auth: { identity: 'alice', tags: ['member'], backend: 'session' }, data: { a: 1, b: null } }, 'a set by one, b deleted by the other')
  t.equal(store.get(sessionKey(id))!.version, 4, 'created, then three writes')
})

test('a re-based write takes the identity and tags now stored, never those it loaded', async (t) => {
  // A store whose record is changed underneath (as a checkIdentity-driven
  // re-scope or an admin tool could): the stale request must not restore the old tags.
  const store = new MemorySessionStore()
  const { app, release, entered } = await build(store)
  t.teardown(() => app.close())
  const id = sessionCookie(await app.inject({ method: 'POST', url: '/login', payload: { identity: 'alice' } }))!
  const key = sessionKey(id)
  const write = app.inject({ method: 'POST', url: '/set/a', payload: { value: 1 }, headers: { cookie: `session_id=${id}` } })
  await until(() => entered() >= 1)
  const stored = store.get(key)!
  t.equal(store.set(key, { ...stored, tags: ['reader'], data: {}, version: stored.version + 1 }, { key, version: stored.version }), 'written')
  release()
  t.equal((await write).statusCode, 200)
  t.match(store.get(key), { identity: 'alice', tags: ['reader'], data: { a: 1 }, version: stored.version + 2 })
})

test('a store that keeps answering conflict: a 409 with a code after a bounded number of tries', async (t) => {
  class Busy extends MemorySessionStore {
    sets = 0
    override set (key: string, record: SessionRecord, loaded: SessionWriteCondition | null): SessionWriteResult {
      if (loaded === null) return super.set(key, record, loaded)
      this.sets++
      return 'conflict'
    }
  }
  const store = new Busy()
  const { app, release } = await build(store)
  t.teardown(() => app.close())
  release()
  const id = sessionCookie(await app.inject({ method: 'POST', url: '/login', payload: { identity: 'alice' } }))!
  const res = await app.inject({ method: 'POST', url: '/set/a', payload: { value: 1 }, headers: { cookie: `session_id=${id}` } })
  t.equal(res.statusCode, 409)
  t.same(res.json(), { statusCode: 409, code: 'GATEHOUSE_SESSION_CONFLICT', error: 'Conflict', message: 'The session was changed by other requests at the same time; try again' })
  t.equal(store.sets, 20, 'tried 20 times, then gave up')
  t.notOk(res.headers['set-cookie'])
})

test('a record written before versions existed is not a session', async (t) => {
  const store = new MemorySessionStore()
  const { app } = await build(store)
  t.teardown(() => app.close())
  const id = sessionCookie(await app.inject({ method: 'POST', url: '/login', payload: { identity: 'alice' } }))!
  const key = sessionKey(id)
  const legacy = { ...store.get(key)!, version: 0 }
  store.destroy(key)
  store.set(key, legacy, null)
  const res = await app.inject({ url: '/whoami', headers: { cookie: `session_id=${id}` } })
  t.same(res.json().auth, null, 'anonymous')
  await until(() => store.get(key) === null)
  t.equal(store.get(key), null, 'and dropped')
})
