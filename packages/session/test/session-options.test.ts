import { test } from 'tap'
import { join } from 'node:path'
import Fastify from 'fastify'
import { loadRecipe, middlewareChain } from '@fastify-gatehouse/core'
import { MemorySessionStore, sessionPlugin, type SessionRecord, type SessionWriteCondition, type SessionWriteResult } from '@fastify-gatehouse/session'
import { build, components, sessionCookie } from './helpers/build.js'
import { untilPast } from '../../../test-helpers/wait.js'

test('cookie attributes: HttpOnly, Path=/, SameSite, Secure when asked, no expiry', async (t) => {
  const plain = await build()
  t.teardown(() => plain.close())
  const set = (await plain.inject({ method: 'POST', url: '/put', payload: { value: 1 } })).headers['set-cookie'] as string
  t.match(set, /^session_id=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax$/)

  const strict = await build({ cookieName: 'sid', secure: true, samesite: 'strict' })
  t.teardown(() => strict.close())
  const res = await strict.inject({ method: 'POST', url: '/put', payload: { value: 1 } })
  t.match(res.headers['set-cookie'], /^sid=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; Secure; SameSite=Strict$/)
  const id = sessionCookie(res, 'sid')!
  t.same((await strict.inject({ url: '/get', headers: { cookie: `sid=${id}` } })).json(), { value: 1, exists: true })
})

test('a failing store: writes are a 503, a failed touch is not', async (t) => {
  class Broken extends MemorySessionStore {
    broken = false
    override get (key: string): SessionRecord | null { if (this.broken) throw new Error('store down'); return super.get(key) }
    override set (key: string, record: SessionRecord, loaded: SessionWriteCondition | null): SessionWriteResult { if (this.broken) throw new Error('store down'); return super.set(key, record, loaded) }
    override touch (): void { throw new Error('store down') }
  }
  const store = new Broken()
  const app = await build({ store, touchInterval: 0 })
  t.teardown(() => app.close())
  const cookie = `session_id=${sessionCookie(await app.inject({ method: 'POST', url: '/put', payload: { value: 1 } }))!}`
  // A later millisecond, so that the read touches (a lower bound only).
  await untilPast(Date.now())
  t.equal((await app.inject({ url: '/get', headers: { cookie } })).statusCode, 200, 'a failed touch does not fail a read')
  store.broken = true
  const write = await app.inject({ method: 'POST', url: '/put', payload: { value: 2 } })
  t.equal(write.statusCode, 503)
  t.same(write.json(), { statusCode: 503, code: 'GATEHOUSE_SESSION_STORE_UNAVAILABLE', error: 'Service Unavailable', message: 'Session store unavailable' })
  t.equal(write.headers['retry-after'], '5')
  t.notOk(write.headers['set-cookie'], 'no cookie for a session that was not saved')
  const read = await app.inject({ url: '/get', headers: { cookie } })
  t.equal(read.statusCode, 503, 'a session that cannot be read is a 503, not a silent logout')
  t.equal((await app.inject('/whoami')).statusCode, 200, 'requests without a session cookie are unaffected')
})

test('bad options fail at boot', async (t) => {
  const cases: Array<[Record<string, unknown>, string | RegExp]> = [
    [{ samesite: 'none' }, 'session options: samesite "none" needs secure: true (browsers refuse it otherwise)'],
    [{ idleTtl: 7200, absoluteTtl: 3600 }, 'session options: absoluteTtl must not be shorter than idleTtl'],
    [{ cookieName: 'bad name' }, /^session options\.cookieName: expected string to match/],
    [{ samesite: 'sometimes' }, /^session options\.samesite: /],
    [{ idleTtl: 0 }, /^session options\.idleTtl: expected number to be greater than 0/],
    [{ store: {} }, 'session options: store must be a SessionStore (with get, set, touch, destroy, destroyAllFor, listFor)'],
    [{ store: { get () {}, set () {} } }, 'session options: store must be a SessionStore (with get, set, touch, destroy, destroyAllFor, listFor)']
  ]
  for (const [options, message] of cases) {
    const app = Fastify()
    await t.rejects(async () => { await app.register(sessionPlugin, options as never).ready() }, { code: /^GATEHOUSE_(SESSION|CORE)_INVALID_OPTIONS$/, message })
    await app.close()
  }
})

test('session options from a config file', async (t) => {
  const dir = t.testdir({ 'g.yaml': 'middleware:\n  session:\n    cookie_name: gh_session\n    samesite: strict\n    idle_ttl: 600\n' })
  const recipe = await loadRecipe(join(dir, 'g.yaml'), { components })
  t.same(recipe.middleware, { session: { cookieName: 'gh_session', samesite: 'strict', idleTtl: 600 } })
  const app = Fastify()
  t.teardown(() => app.close())
  await middlewareChain(app, recipe, { components })
  app.post('/put', async (req) => { req.scope.session!.set('a', 1); return 'ok' })
  t.match((await app.inject({ method: 'POST', url: '/put' })).headers['set-cookie'], /^gh_session=.*SameSite=Strict$/)
})

test('an app that registered @fastify/cookie itself keeps it', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  const { fastifyCookie } = await import('@fastify/cookie')
  await app.register(fastifyCookie)
  await app.register(sessionPlugin)
  app.post('/put', async (req, reply) => { req.scope.session!.set('a', 1); reply.setCookie('theme', 'dark'); return 'ok' })
  const res = await app.inject({ method: 'POST', url: '/put' })
  const cookies = res.headers['set-cookie'] as string[]
  t.equal(cookies.length, 2)
  t.ok(cookies.some((c) => c.startsWith('theme=dark')))
  t.ok(cookies.some((c) => /^session_id=[A-Za-z0-9_-]{43};/.test(c)))
})
