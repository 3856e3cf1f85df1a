import { test } from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import { middlewareChain } from '@fastify-gatehouse/core'
import { MemorySessionStore, Session, sessionKey, sessionPlugin, type CheckIdentity, type SessionRecord } from '@fastify-gatehouse/session'
import { components, sessionCookie } from './helpers/build.js'

async function build (checkIdentity: CheckIdentity, store = new MemorySessionStore()): Promise<FastifyInstance> {
  const app = Fastify()
  await middlewareChain(app, { middleware: { session: { store, checkIdentity } } }, { components })
  app.post<{ Body: { identity: string, via?: string, stamp?: string } }>('/login', async (req) => {
    const { identity, via, stamp } = req.body
    req.scope.session!.login(identity, 'member', { ...(via === undefined ? {} : { via }), ...(stamp === undefined ? {} : { stamp }) })
    return { ok: true }
  })
  app.post('/put', async (req) => { req.scope.session!.set('k', 1); return { ok: true } })
  app.get('/whoami', async (req) => ({ auth: req.scope.auth, tags: req.scope.session!.tags, via: req.scope.session!.via }))
  app.get('/private', { authRule: 'member' }, async () => ({ ok: true }))
  app.get('/admin', { authRule: 'admin' }, async () => ({ ok: true }))
  await app.ready()
  return app
}

test('checkIdentity sees every signed-in session on load, with how it was signed in', async (t) => {
  const seen: Array<[string, Pick<SessionRecord, 'via' | 'stamp' | 'tags'>]> = []
  const app = await build((identity, record) => { seen.push([identity, { via: record.via, stamp: record.stamp, tags: record.tags }]); return record })
  t.teardown(() => app.close())
  const anonymous = sessionCookie(await app.inject({ method: 'POST', url: '/put' }))!
  await app.inject({ url: '/whoami', headers: { cookie: `session_id=${anonymous}` } })
  await app.inject('/whoami')
  t.same(seen, [], 'never for anonymous sessions or requests without one')
  const id = sessionCookie(await app.inject({ method: 'POST', url: '/login', payload: { identity: 'alice', via: 'password', stamp: 's-1' } }))!
  const res = await app.inject({ url: '/whoami', headers: { cookie: `session_id=${id}` } })
  t.same(res.json(), { auth: { identity: 'alice', tags: ['member'], backend: 'session' }, tags: ['member'], via: 'password' })
  t.same(seen, [['alice', { via: 'password', stamp: 's-1', tags: ['member'] }]])
})

test('the tags it answers are the caller\'s tags for this request (sync or async)', async (t) => {
  let tags: string[] = ['member']
  for (const check of [(() => ({ tags })) as CheckIdentity, (async () => ({ tags })) as CheckIdentity]) {
    tags = ['member']
    const app = await build(check)
    t.teardown(() => app.close())
    const cookie = `session_id=${sessionCookie(await app.inject({ method: 'POST', url: '/login', payload: { identity: 'alice' } }))!}`
    t.equal((await app.inject({ url: '/admin', headers: { cookie } })).statusCode, 403)
    tags = ['admin']
    t.equal((await app.inject({ url: '/admin', headers: { cookie } })).statusCode, 200, 'the next request has the new tags')
    t.equal((await app.inject({ url: '/private', headers: { cookie } })).statusCode, 403, 'and only those')
    t.same((await app.inject({ url: '/whoami', headers: { cookie } })).json().tags, ['admin'], 'session.tags too')
  }
})

test('null ends the session: anonymous, the record destroyed, the cookie cleared', async (t) => {
  let allowed = true
  const store = new MemorySessionStore()
  const app = await build(async (_identity, record) => allowed ? record : null, store)
  t.teardown(() => app.close())
  const id = sessionCookie(await app.inject({ method: 'POST', url: '/login', payload: { identity: 'alice' } }))!
  const cookie = `session_id=${id}`
  t.equal((await app.inject({ url: '/private', headers: { cookie } })).statusCode, 200)
  allowed = false
  const refused = await app.inject({ url: '/private', headers: { cookie } })
  t.equal(refused.statusCode, 403)
  t.equal(refused.json().code, 'GATEHOUSE_CORE_FORBIDDEN')
  t.match(refused.headers['set-cookie'], /^session_id=; Max-Age=0;/)
  t.equal(store.get(sessionKey(id)), null, 'destroyed')
  allowed = true
  t.same((await app.inject({ url: '/whoami', headers: { cookie } })).json().auth, null, 'and stays ended')
})

test('a check that throws or rejects is a 503 with a code; the session is kept', async (t) => {
  let fail: 'sync' | 'async' | null = null
  const store = new MemorySessionStore()
  const app = await build((_identity, record) => {
    if (fail === 'sync') throw new Error('users file unreadable')
    if (fail === 'async') return Promise.reject(new Error('users file unreadable'))
    return record
  }, store)
  t.teardown(() => app.close())
  const id = sessionCookie(await app.inject({ method: 'POST', url: '/login', payload: { identity: 'alice' } }))!
  for (const mode of ['sync', 'async'] as const) {
    fail = mode
    const res = await app.inject({ url: '/private', headers: { cookie: `session_id=${id}` } })
    t.equal(res.statusCode, 503, mode)
    t.same(res.json(), { statusCode: 503, code: 'GATEHOUSE_SESSION_CHECK_UNAVAILABLE', error: 'Service Unavailable', message: 'The signed-in user cannot be checked right now' })
    t.equal(res.headers['retry-after'], '5')
    t.notMatch(res.body, /users file/, 'the cause is not sent')
  }
  fail = null
  t.not(store.get(sessionKey(id)), null, 'the session was not ended by a failed check')
  t.equal((await app.inject({ url: '/private', headers: { cookie: `session_id=${id}` } })).statusCode, 200)
})

test('bad checkIdentity or login options are refused', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  app.register(sessionPlugin, { checkIdentity: 'yes' as never })
  await t.rejects(async () => { await app.ready() }, { code: 'GATEHOUSE_SESSION_INVALID_OPTIONS', message: /checkIdentity must be a function/ })
  const session = new Session({ idleTtl: 1000, absoluteTtl: 2000, touchInterval: 0 }, Date.now())
  t.throws(() => session.login('alice', [], { via: 7 as never }), { code: 'GATEHOUSE_SESSION_INVALID_LOGIN', message: 'session.login: options.via must be a string' })
  t.throws(() => session.login('alice', [], { stamp: {} as never }), { code: 'GATEHOUSE_SESSION_INVALID_LOGIN', message: 'session.login: options.stamp must be a string' })
  t.throws(() => session.login('' as never), { code: 'GATEHOUSE_SESSION_INVALID_LOGIN', message: 'session.login: needs an identity' })
})

test('a check that answers neither null nor { tags } fails closed with 503, whatever kind of promise it uses (review finding)', async (t) => {
  // A PromiseLike from another library: not `instanceof Promise`.
  const thenable = (value: unknown) => ({ then: (resolve: (v: unknown) => void) => { setImmediate(() => resolve(value)) } })
  const cases: Array<[string, CheckIdentity]> = [
    ['resolves undefined', (async () => undefined) as unknown as CheckIdentity],
    ['resolves {}', (async () => ({})) as unknown as CheckIdentity],
    ['returns tags that are not strings', (() => ({ tags: [1] })) as unknown as CheckIdentity],
    ['a foreign thenable resolving { tags: 7 }', (() => thenable({ tags: 7 })) as unknown as CheckIdentity]
  ]
  for (const [name, check] of cases) {
    const app = await build(check)
    t.teardown(() => app.close())
    const cookie = `session_id=${sessionCookie(await app.inject({ method: 'POST', url: '/login', payload: { identity: 'alice' } }))!}`
    const res = await app.inject({ url: '/private', headers: { cookie } })
    t.equal(res.statusCode, 503, `${name}: 503, not the stored tags and not a crash`)
    t.match(res.json(), { code: 'GATEHOUSE_SESSION_CHECK_UNAVAILABLE' })
  }
  const ended = await build((() => thenable(null)) as unknown as CheckIdentity)
  t.teardown(() => ended.close())
  const cookie = `session_id=${sessionCookie(await ended.inject({ method: 'POST', url: '/login', payload: { identity: 'alice' } }))!}`
  t.equal((await ended.inject({ url: '/private', headers: { cookie } })).statusCode, 403, 'a foreign thenable answering null ends the session')
})
