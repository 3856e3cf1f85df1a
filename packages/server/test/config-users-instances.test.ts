// Issue 25, item 1: users seeded from the options (`users: { bob: { password, tags } }`,
// the same config on every instance) keep their sessions across instances
// that share a session store. D-SESSION-27, D-AUTH-70.
import { test, type Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { hashPassword } from '@fastify-gatehouse/auth'
import { migrate, PostgresSessionStore } from '@fastify-gatehouse/postgres'
import { RedisSessionStore } from '@fastify-gatehouse/redis'
import type { SessionStore } from '@fastify-gatehouse/session'
import { AppServer, type AppServerOptions } from '@fastify-gatehouse/server'
import { cleanPrefix, needRedis, PATIENT_TIMEOUTS, REDIS_URL, testPrefix } from '../../redis/test/helpers/redis.js'
import { needPostgres, testDatabase } from '../../postgres/test/helpers/postgres.js'
import { get, login, sessionCookie } from './helpers/redis-servers.js'

const redis = await needRedis()
const postgres = await needPostgres()

type Users = NonNullable<AppServerOptions['users']>

/** One instance on a real port: the users given (as a config file gives them), sessions in `store`. */
async function start (t: Test, users: Users | undefined, store: SessionStore, more: Partial<AppServerOptions> = {}): Promise<string> {
  const server = new AppServer({ logger: false, ...(users === undefined ? {} : { users }), session: { store }, ...more })
  server.register(async (app: FastifyInstance) => {
    app.get('/me', async (request) => ({ auth: request.scope.auth }))
    app.get('/orders', { config: { authRule: 'member' } }, async (request) => ({ for: request.scope.auth?.identity }))
  })
  t.teardown(async () => { await server.close() })
  return await server.serve('127.0.0.1', 0)
}

async function sharedConfig (): Promise<{ users: Users, carolHash: string }> {
  // carol's entry is a hash, as `gatehouse users hash` prints it; bob's a password in clear.
  const carolHash = await hashPassword('carol-pass-1')
  return { users: { bob: { password: 'bob-pass-1', tags: 'member' }, carol: { passwordHash: carolHash, tags: ['member'] } }, carolHash }
}

async function crossInstances (t: Test, stores: () => SessionStore): Promise<void> {
  const { users } = await sharedConfig()
  const [a, b] = [await start(t, users, stores()), await start(t, users, stores())]
  t.not(a, b, 'two ports')

  const signedIn = await login(a, 'bob', 'bob-pass-1')
  t.equal(signedIn.status, 200, 'bob signs in on A')
  const bob = sessionCookie(signedIn)
  const onB = await get(b, '/orders', { cookie: bob })
  t.equal(onB.status, 200, 'his cookie opens the rule-protected route on B')
  t.same(await onB.json(), { for: 'bob' })
  t.same(await (await get(b, '/me', { cookie: bob })).json(), { auth: { identity: 'bob', tags: ['member'], backend: 'session' } })

  const answers = await Promise.all(Array.from({ length: 30 }, async (_, i) => {
    const response = await get(i % 2 === 0 ? a : b, '/orders', { cookie: bob })
    return `${response.status} ${JSON.stringify(await response.json())}`
  }))
  t.same(answers, Array.from({ length: 30 }, () => '200 {"for":"bob"}'), '30 parallel requests alternating A and B: all 200')

  const carolIn = await login(b, 'carol', 'carol-pass-1')
  t.equal(carolIn.status, 200, 'carol (a passwordHash entry) signs in on B')
  const carol = sessionCookie(carolIn)
  t.same(await (await get(a, '/orders', { cookie: carol })).json(), { for: 'carol' }, 'and her cookie works on A')

  // Another tag for bob on a third instance, same password: the session is re-scoped, not ended.
  const retagged = await start(t, { ...users, bob: { password: 'bob-pass-1', tags: 'ops' } }, stores())
  t.same(await (await get(retagged, '/me', { cookie: bob })).json(), { auth: { identity: 'bob', tags: ['ops'], backend: 'session' } }, 'new tags apply at once')
  t.equal((await get(retagged, '/orders', { cookie: bob })).status, 403, 'and only they')

  // A fourth instance configured with changed passwords refuses the old sessions.
  const changed = await start(t, {
    bob: { password: 'bob-pass-2', tags: 'member' },
    carol: { passwordHash: await hashPassword('carol-pass-2'), tags: 'member' }
  }, stores())
  for (const [name, cookie] of [['bob', bob], ['carol', carol]] as const) {
    const refused = await get(changed, '/orders', { cookie })
    t.equal(refused.status, 403, `${name}'s old session is refused where the password changed`)
    t.match(refused.headers.getSetCookie().join('\n'), /session_id=;.*Max-Age=0/i, 'and its cookie cleared')
    t.same(await (await get(changed, '/me', { cookie })).json(), { auth: null })
  }
  const fresh = await login(changed, 'bob', 'bob-pass-2')
  t.equal(fresh.status, 200, 'bob signs in there with the new password')
  t.same(await (await get(changed, '/orders', { cookie: sessionCookie(fresh) })).json(), { for: 'bob' })
}

test('config users: a session made on A works on B with one Redis session store, and ends where the password changed', redis, async (t) => {
  const prefix = testPrefix('cfgusers')
  const opened: RedisSessionStore[] = []
  t.teardown(async () => { for (const store of opened) await store.close(); await cleanPrefix(prefix) })
  for (let i = 0; i < 4; i++) opened.push(await RedisSessionStore.connect({ url: REDIS_URL, ...PATIENT_TIMEOUTS, prefix }))
  let next = 0
  await crossInstances(t, () => opened[next++]!)
})

test('config users: a session made on A works on B with one PostgreSQL session store, and ends where the password changed', postgres, async (t) => {
  const db = await testDatabase()
  t.teardown(db.drop)
  await migrate({ url: db.url })
  const opened: PostgresSessionStore[] = []
  t.teardown(async () => { for (const store of opened) await store.close() })
  for (let i = 0; i < 4; i++) opened.push(await PostgresSessionStore.connect({ url: db.url, poolSize: 4 }))
  let next = 0
  await crossInstances(t, () => opened[next++]!)
})

test('adminPassword without a user store: the admin\'s session made on A works on B', redis, async (t) => {
  const prefix = testPrefix('cfgadmin')
  const opened: RedisSessionStore[] = []
  t.teardown(async () => { for (const store of opened) await store.close(); await cleanPrefix(prefix) })
  for (let i = 0; i < 2; i++) opened.push(await RedisSessionStore.connect({ url: REDIS_URL, ...PATIENT_TIMEOUTS, prefix }))
  const adminPassword = 'a long root passphrase 1'
  const a = await start(t, undefined, opened[0]!, { adminPassword })
  const b = await start(t, { admin: { password: 'the old one, replaced', tags: 'ops' } }, opened[1]!, { adminPassword })
  const signedIn = await login(a, 'admin', adminPassword)
  t.equal(signedIn.status, 200)
  const cookie = sessionCookie(signedIn)
  const onB = await get(b, '/me', { cookie })
  t.same(await onB.json(), { auth: { identity: 'admin', tags: ['ops', 'SUPERADMIN'], backend: 'session' } }, 'B (admin also a users entry, tag ops kept) keeps the session')
})
