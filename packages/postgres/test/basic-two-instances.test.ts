// Two servers (two Fastify apps, each with a PostgresUserStore and a pool
// of its own) on one database, answering Basic over real sockets. A
// credential both have cached follows the user as it changes: through
// instance A's store (A sees it at once: its write drops its own entry),
// or through a third store as an admin's CLI would (both hear of it by
// notification, within the listener's bound). D-AUTH-42, D-POSTGRES-14.
import { test, type Test } from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import { middlewareChain } from '@fastify-gatehouse/core'
import { errorsPlugin } from '@fastify-gatehouse/errors'
import { authPlugin } from '@fastify-gatehouse/auth'
import { PostgresUserStore } from '../src/index.js'
import { FAST_SCRYPT, ownDatabase } from './helpers/identity.js'
import { needPostgres } from './helpers/postgres.js'
import { hangSignal, waitUntil } from '../../../test-helpers/wait.js'

const postgres = await needPostgres()
const basic = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`
const CHALLENGE = 'Basic realm="gatehouse", charset="UTF-8"'

interface Answer {
  readonly on: 'A' | 'B'
  readonly status: number
  readonly body: { code?: string, statusCode?: number, identity?: string, tags?: string[], backend?: string, admin?: string }
  readonly text: string
  readonly challenge: string | null
}

interface Instance {
  readonly name: 'A' | 'B'
  readonly store: PostgresUserStore
  readonly origin: string
  /** How many times this instance asked its store to verify a password (a cache miss). */
  verifies: number
}

/** A server of its own on 127.0.0.1 (port 0) with `basic: { users: store }`; `/me` for admin|reader, `/admin` for admin. */
async function serve (name: 'A' | 'B', store: PostgresUserStore, closeLater: (thing: { close: () => Promise<unknown> }) => unknown): Promise<Instance> {
  const instance: Instance = { name, store, origin: '', verifies: 0 }
  // Counts the cache misses: the plugin calls the store's verify on each.
  const verify = store.verify.bind(store)
  store.verify = async (identity, password) => {
    instance.verifies++
    return await verify(identity, password)
  }
  const app: FastifyInstance = Fastify()
  // basicConcurrency above the waves: a refused credential is evicted
  // (D-AUTH-42), so after a disable each of 20 parallel requests is a cache
  // miss and a password check, and past the default 16 the rest are 503
  // GATEHOUSE_AUTH_BUSY (D-AUTH-43); this test is about what each answer is.
  await middlewareChain(app, { authMiddleware: { basic: { users: store }, basicConcurrency: 1000 } }, { components: [errorsPlugin, authPlugin] })
  app.get('/me', { authRule: 'admin|reader' }, async (req) => req.scope.auth)
  app.get('/admin', { authRule: 'admin' }, async (req) => ({ admin: req.scope.auth?.identity }))
  closeLater({ close: async () => { await app.close() } })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as { port: number }
  return Object.assign(instance, { origin: `http://127.0.0.1:${port}` })
}

async function ask (instance: Instance, password: string, path = '/me', user = 'alice'): Promise<Answer> {
  const res = await fetch(`${instance.origin}${path}`, { headers: { authorization: basic(user, password) }, signal: hangSignal() })
  const text = await res.text()
  return { on: instance.name, status: res.status, body: JSON.parse(text), text, challenge: res.headers.get('www-authenticate') }
}

/** `n` requests at once, alternating between the instances. */
async function wave (instances: readonly Instance[], n: number, password: string, path = '/me'): Promise<Answer[]> {
  return await Promise.all(Array.from({ length: n }, async (_v, i) => await ask(instances[i % instances.length]!, password, path)))
}

/** Every answer is the refusal of a bad Basic credential: 401, its code, the challenge, no secret. */
function allRefused (t: Test, answers: readonly Answer[], password: string, what: string, from: ReadonlyArray<'A' | 'B'> = ['A', 'B']): void {
  const wrong = answers.filter((a) => a.status !== 401 || a.body.code !== 'GATEHOUSE_AUTH_INVALID_CREDENTIALS' || a.body.statusCode !== 401 || a.challenge !== CHALLENGE)
  t.same(wrong.map((a) => `${a.on}: ${a.status} ${a.text} (${String(a.challenge)})`), [], `${what}: all ${answers.length} are 401 GATEHOUSE_AUTH_INVALID_CREDENTIALS with ${CHALLENGE}`)
  t.same(new Set(answers.map((a) => a.on)), new Set(from), `from ${from.join(' and ')}`)
  t.notOk(answers.some((a) => a.text.includes(password)), 'the password is never in a body')
}

/** Every answer lets alice in with `tags`. */
function allAccepted (t: Test, answers: readonly Answer[], tags: string[], what: string): void {
  const wrong = answers.filter((a) => a.status !== 200 || JSON.stringify(a.body) !== JSON.stringify({ identity: 'alice', tags, backend: 'basic' }) || a.challenge !== null)
  t.same(wrong.map((a) => `${a.on}: ${a.status} ${a.text}`), [], `${what}: all ${answers.length} are 200 as alice with ${JSON.stringify(tags)}`)
  t.same(new Set(answers.map((a) => a.on)), new Set(['A', 'B']), 'from both instances')
}

test('basic: { users } on two instances sharing one PostgreSQL database: a cached credential follows the user on both', postgres, async (t) => {
  const { url, closeLater } = await ownDatabase(t)
  const connect = async (): Promise<PostgresUserStore> => closeLater(await PostgresUserStore.connect({ url, scrypt: FAST_SCRYPT, poolSize: 5 }))
  // As the CLI would: a store of its own, beside both servers.
  const admin = await connect()
  await admin.add('alice', { password: 'first-password-1', tags: 'admin' })
  const a = await serve('A', await connect(), closeLater)
  const b = await serve('B', await connect(), closeLater)
  const both = [a, b]
  const sees = async (instance: Instance, password: string, status: number, path = '/me'): Promise<boolean> =>
    (await ask(instance, password, path)).status === status
  /** Polls until `instance` answers `status` (a change made elsewhere arrives by notification). */
  const until = async (instance: Instance, password: string, status: number, what: string, path = '/me'): Promise<void> => {
    await waitUntil(async () => await sees(instance, password, status, path), { what: `${what} on ${instance.name}`, everyMs: 20 })
  }

  await t.test('warmed: both verify once, then answer from their cache', async (t) => {
    allAccepted(t, [await ask(a, 'first-password-1'), await ask(b, 'first-password-1')], ['admin'], 'first requests')
    t.same([a.verifies, b.verifies], [1, 1], 'each instance verified the password once')
    allAccepted(t, await wave(both, 40, 'first-password-1'), ['admin'], '40 parallel requests')
    t.same([a.verifies, b.verifies], [1, 1], 'and no request since hashed it again: cache hits')
  })

  await t.test('disabled through instance A: A refuses at once, B as soon as it hears; then 40 parallel requests are all refused', async (t) => {
    t.equal(await a.store.setEnabled('alice', false), true)
    allRefused(t, await wave([a], 20, 'first-password-1'), 'first-password-1', 'A right after its own write', ['A'])
    // Meanwhile on B: the old answer or the refusal, never anything else.
    const window = await wave([b], 20, 'first-password-1')
    t.same(window.filter((x) => x.status !== 200 && x.status !== 401).map((x) => x.text), [], 'B before it hears: only 200 or 401')
    await until(b, 'first-password-1', 401, 'the disabled user refused')
    allRefused(t, await wave(both, 40, 'first-password-1'), 'first-password-1', 'disabled, both instances')
    allRefused(t, await wave(both, 40, 'first-password-1'), 'first-password-1', 'disabled, again (no cached entry brings it back)')
  })

  await t.test('re-enabled: the same password works again on both', async (t) => {
    t.equal(await a.store.setEnabled('alice', true), true)
    await until(b, 'first-password-1', 200, 'the re-enabled user accepted')
    allAccepted(t, await wave(both, 40, 'first-password-1'), ['admin'], 're-enabled')
  })

  await t.test('a new password set through A: the old one is refused on both, the new one accepted on both', async (t) => {
    const before = [a.verifies, b.verifies]
    t.equal(await a.store.setPassword('alice', 'second-password-2'), true)
    allRefused(t, await wave([a], 20, 'first-password-1'), 'first-password-1', 'the old password on A at once', ['A'])
    await until(b, 'first-password-1', 401, 'the old password refused')
    const mixed = await Promise.all([wave(both, 40, 'first-password-1'), wave(both, 40, 'second-password-2')])
    allRefused(t, mixed[0], 'first-password-1', 'the old password, 40 in parallel')
    allAccepted(t, mixed[1], ['admin'], 'the new password, 40 in parallel beside them')
    t.ok(a.verifies > before[0]! && b.verifies > before[1]!, 'each instance verified again (the stamp changed)')
    const settled = [a.verifies, b.verifies]
    allAccepted(t, await wave(both, 40, 'second-password-2'), ['admin'], 'the new password once cached')
    t.same([a.verifies, b.verifies], settled, 'from the cache')
  })

  await t.test('tags changed by an admin elsewhere: a tag-guarded route follows on both', async (t) => {
    t.equal(await admin.setTags('alice', 'reader'), true)
    for (const instance of both) await until(instance, 'second-password-2', 403, 'admin tag gone', '/admin')
    const refused = await wave(both, 40, 'second-password-2', '/admin')
    const wrong = refused.filter((x) => x.status !== 403 || x.body.code !== 'GATEHOUSE_CORE_FORBIDDEN' || x.challenge !== null)
    t.same(wrong.map((x) => `${x.on}: ${x.status} ${x.text}`), [], '/admin: all 40 are 403 GATEHOUSE_CORE_FORBIDDEN, no challenge (the credential is good)')
    allAccepted(t, await wave(both, 40, 'second-password-2'), ['reader'], '/me with the new tags')

    t.equal(await admin.setTags('alice', ['admin', 'reader']), true)
    for (const instance of both) await until(instance, 'second-password-2', 200, 'admin tag back', '/admin')
    const allowed = await wave(both, 40, 'second-password-2', '/admin')
    t.same(allowed.filter((x) => x.status !== 200 || x.body.admin !== 'alice').map((x) => `${x.on}: ${x.status} ${x.text}`), [], '/admin: all 40 are 200')
    allAccepted(t, await wave(both, 40, 'second-password-2'), ['admin', 'reader'], '/me')
  })

  await t.test('deleted by an admin elsewhere: refused on both', async (t) => {
    t.equal(await admin.delete('alice'), true)
    for (const instance of both) await until(instance, 'second-password-2', 401, 'the deleted user refused')
    allRefused(t, await wave(both, 40, 'second-password-2'), 'second-password-2', 'deleted')
    allRefused(t, await wave(both, 40, 'second-password-2', '/admin'), 'second-password-2', 'deleted, on /admin')
    // A new alice is another account: her password, not the old one.
    await admin.add('alice', { password: 'third-password-3', tags: 'reader' })
    for (const instance of both) await until(instance, 'third-password-3', 200, 'the new alice accepted')
    allRefused(t, await wave(both, 40, 'second-password-2'), 'second-password-2', 'the old alice\'s password after the name is reused')
    allAccepted(t, await wave(both, 40, 'third-password-3'), ['reader'], 'the new alice')
  })
})
