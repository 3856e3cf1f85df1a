// Issue 25, review of item 2: the session component awaited its store and
// checkIdentity with no limit: a SessionStore.get that never answered held
// every request with a session cookie for ever. Each call now has
// `callbackTimeout` seconds, then 503 with Retry-After; the late answer is
// ignored; what a store throws is logged by its safe facts only (a session
// key is a secret). D-SESSION-33, D-SESSION-34.
import { test, type Test } from 'tap'
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify'
import pino from 'pino'
import { middlewareChain } from '@fastify-gatehouse/core'
import { MemorySessionStore, sessionKey, type CheckIdentity, type SessionRecord, type SessionWriteCondition } from '@fastify-gatehouse/session'
import { components, sessionCookie } from '../helpers/build.js'
import { hangSignal } from '../../../../test-helpers/wait.js'

type Method = 'get' | 'set' | 'destroy' | 'touch'

/** A memory store whose methods can be made to hang (until released) or to throw, quoting the key. */
class FaultyStore extends MemorySessionStore {
  readonly hanging = new Set<Method>()
  readonly throwing = new Set<Method>()
  #held: Array<() => void> = []
  release (): void {
    this.hanging.clear()
    for (const go of this.#held.splice(0)) go()
  }

  #call<T> (method: Method, key: string, work: () => T): T | Promise<T> {
    if (this.throwing.has(method)) throw Object.assign(new Error(`${method} failed for key ${key}`), { code: 'ECONNRESET', key })
    if (!this.hanging.has(method)) return work()
    return new Promise<T>((resolve) => { this.#held.push(() => { resolve(work()) }) })
  }

  override get (key: string): SessionRecord | null { return this.#call('get', key, () => super.get(key)) as SessionRecord | null }
  override set (key: string, record: SessionRecord, loaded: SessionWriteCondition | null): ReturnType<MemorySessionStore['set']> { return this.#call('set', key, () => super.set(key, record, loaded)) as ReturnType<MemorySessionStore['set']> }
  override destroy (key: string): void { return this.#call('destroy', key, () => { super.destroy(key) }) as undefined }
  override touch (key: string, expiresAt: number): void { return this.#call('touch', key, () => { super.touch(key, expiresAt) }) as undefined }
}

async function serve (t: Test, store: FaultyStore, lines: string[], checkIdentity?: CheckIdentity): Promise<string> {
  const app: FastifyInstance = Fastify({ loggerInstance: pino({ level: 'trace' }, { write: (l: string) => { lines.push(l) } }) as FastifyBaseLogger })
  await middlewareChain(app, { middleware: { session: { store, callbackTimeout: 0.2, ...(checkIdentity === undefined ? {} : { checkIdentity }) } } }, { components })
  app.post<{ Body: { identity: string } }>('/login', async (req) => { req.scope.session!.login(req.body.identity, 'member'); return { ok: true } })
  app.post('/logout', async (req) => { req.scope.session!.logout(); return { ok: true } })
  app.post('/put', async (req) => { req.scope.session!.set('k', 1); return { ok: true } })
  app.get('/whoami', async (req) => ({ identity: req.scope.auth?.identity ?? null }))
  t.teardown(() => app.close())
  await app.listen({ host: '127.0.0.1', port: 0 })
  const address = app.server.address() as { port: number }
  return `http://127.0.0.1:${address.port}`
}

interface Answer { status: number, code: string | undefined, retryAfter: string | null, identity: string | null | undefined, ms: number }

async function ask (base: string, path: string, cookie: string, method = 'GET'): Promise<Answer> {
  const started = Date.now()
  const res = await fetch(`${base}${path}`, { method, headers: { cookie: `session_id=${cookie}` }, signal: hangSignal() })
  const body = await res.json() as { code?: string, identity?: string | null }
  return { status: res.status, code: body.code, retryAfter: res.headers.get('retry-after'), identity: body.identity, ms: Date.now() - started }
}

async function signIn (base: string, identity: string): Promise<string> {
  const res = await fetch(`${base}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ identity }), signal: hangSignal() })
  return sessionCookie({ headers: { 'set-cookie': res.headers.getSetCookie() } })!
}

test('a hung get, set or destroy: 503 GATEHOUSE_SESSION_STORE_UNAVAILABLE with Retry-After, over a real socket', async (t) => {
  const lines: string[] = []
  const store = new FaultyStore()
  const base = await serve(t, store, lines)
  const id = await signIn(base, 'alice')
  const cases: Array<[Method, string, string]> = [['get', 'GET', '/whoami'], ['set', 'POST', '/put'], ['destroy', 'POST', '/logout']]
  for (const [method, verb, path] of cases) {
    store.hanging.add(method)
    const answer = await ask(base, path, id, verb)
    t.equal(answer.status, 503, `${method}: 503`)
    t.equal(answer.code, 'GATEHOUSE_SESSION_STORE_UNAVAILABLE', `${method}: the code`)
    t.equal(answer.retryAfter, '5', `${method}: Retry-After`)
    t.ok(answer.ms >= 150, `${method}: not before the limit (${answer.ms} ms)`)
    store.release()
    const after = await ask(base, '/whoami', id)
    // The late answer lands in the store (a logout's destroy ends the session), and nothing else happens.
    t.same([after.status, after.identity], [200, method === 'destroy' ? null : 'alice'], `${method}: the store answers again`)
  }
  t.match(lines.join('\n'), 'SessionStore.get gave no answer within 200 ms', 'the log names the call and the limit')
})

test('a hung checkIdentity: 503 GATEHOUSE_SESSION_CHECK_UNAVAILABLE, the late answer ignored', async (t) => {
  const lines: string[] = []
  let hang = false
  const held: Array<() => void> = []
  const store = new FaultyStore()
  const base = await serve(t, store, lines, (_identity, record) => hang ? new Promise((resolve) => { held.push(() => { resolve(record) }) }) : record)
  const id = await signIn(base, 'alice')
  hang = true
  const answer = await ask(base, '/whoami', id)
  t.same([answer.status, answer.code, answer.retryAfter], [503, 'GATEHOUSE_SESSION_CHECK_UNAVAILABLE', '5'])
  t.ok(answer.ms >= 150, `not before the limit (${answer.ms} ms)`)
  hang = false
  for (const go of held.splice(0)) go()
  const after = await ask(base, '/whoami', id)
  t.same([after.status, after.identity], [200, 'alice'])
})

test('two instances sharing a hung store both answer 503 while it hangs and recover when it answers; 30 parallel requests all answered', async (t) => {
  const lines: string[] = []
  const store = new FaultyStore()
  const bases = [await serve(t, store, lines), await serve(t, store, lines)]
  const id = await signIn(bases[0]!, 'alice')
  store.hanging.add('get')
  const during = await Promise.all(Array.from({ length: 30 }, async (_, i) => await ask(bases[i % 2]!, '/whoami', id)))
  t.same(new Set(during.map((a) => `${a.status} ${a.code}`)), new Set(['503 GATEHOUSE_SESSION_STORE_UNAVAILABLE']), 'all 30 answered 503 with the code')
  store.release()
  const after = await Promise.all(Array.from({ length: 30 }, async (_, i) => await ask(bases[i % 2]!, '/whoami', id)))
  t.same(new Set(after.map((a) => `${a.status} ${a.identity}`)), new Set(['200 alice']), 'all 30 answered by both instances once the store answers')
})

test('what a store throws is logged by its class and code, never the session key it quoted', async (t) => {
  const lines: string[] = []
  const store = new FaultyStore()
  const base = await serve(t, store, lines)
  const id = await signIn(base, 'alice')
  for (const method of ['get', 'set', 'destroy', 'touch'] as const) store.throwing.add(method)
  t.equal((await ask(base, '/whoami', id)).status, 503)
  store.throwing.delete('get')
  t.equal((await ask(base, '/put', id, 'POST')).status, 503, 'set')
  t.equal((await ask(base, '/logout', id, 'POST')).status, 503, 'destroy')
  const logged = lines.join('\n')
  t.match(logged, 'SessionStore.get threw Error ECONNRESET')
  t.match(logged, 'SessionStore.set threw Error ECONNRESET')
  t.match(logged, 'SessionStore.destroy threw Error ECONNRESET')
  t.notOk(logged.includes(sessionKey(id)), 'the session key is in no log line')
  t.notOk(logged.includes(id), 'nor the session id')
})
