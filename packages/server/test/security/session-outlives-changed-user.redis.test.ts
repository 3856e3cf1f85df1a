// Issue 13, item 2, on two instances: A and B share a RedisSessionStore and
// one users.json (each through its own FileUserStore, as two processes).
// A user changed through B's admin API, or with the CLI on the shared file,
// loses what their sessions allowed on both.
import { test, type Test } from 'tap'
import { RedisSessionStore } from '@fastify-gatehouse/redis'
import { cleanPrefix, needRedis, PATIENT_TIMEOUTS, REDIS_URL, testPrefix } from '../../../redis/test/helpers/redis.js'
import { get } from '../helpers/redis-servers.js'
import { admin, ADMIN_CHANGES, ADMIN_PASSWORD, cli, raceChange, eventually, fileInstance, signIn, usersFile } from '../helpers/user-changes.js'
import { hangSignal } from '../../../../test-helpers/wait.js'

const redis = await needRedis()

interface Pair { dir: string, a: string, b: string, alice: string, adminOnB: string }

async function pair (t: Test): Promise<Pair> {
  const dir = t.testdir({})
  const path = await usersFile(dir)
  const prefix = testPrefix('sess')
  t.teardown(() => cleanPrefix(prefix))
  const bases: string[] = []
  for (let i = 0; i < 2; i++) {
    const sessions = new RedisSessionStore({ url: REDIS_URL, ...PATIENT_TIMEOUTS, prefix })
    await sessions.ready()
    const instance = await fileInstance(path, sessions)
    t.teardown(async () => { await instance.server.close(); await sessions.close() })
    bases.push(instance.base)
  }
  const [a, b] = bases as [string, string]
  const alice = await signIn(a, 'alice', 'alice-pass')
  for (const base of bases) t.equal((await get(base, '/orders', { cookie: alice })).status, 200, 'alice is signed in on both')
  return { dir, a, b, alice, adminOnB: await signIn(b, 'admin', ADMIN_PASSWORD) }
}

async function refusedOnBoth (t: Test, { a, b, alice }: Pair, what: string): Promise<void> {
  for (const [name, base] of [['A', a], ['B', b]] as const) {
    const orders = await get(base, '/orders', { cookie: alice })
    t.equal(orders.status, 403, `${what}: 403 on ${name}`)
    t.match(await orders.json(), { code: 'GATEHOUSE_CORE_FORBIDDEN' })
    t.same(await (await get(base, '/me', { cookie: alice })).json(), { auth: null }, `${what}: anonymous on ${name}`)
  }
}

test('disabled, re-passworded or deleted through B\'s admin API: refused on A at once', redis, async (t) => {
  for (const [name, method, body] of ADMIN_CHANGES) {
    await t.test(name, async (t) => {
      const p = await pair(t)
      t.equal((await admin(p.b, p.adminOnB, method, 'alice', body)).status, 200)
      await refusedOnBoth(t, p, name)
    })
  }
})

test('re-tagged through B\'s admin API: the next requests on A carry the new tags (within watchInterval)', redis, async (t) => {
  const p = await pair(t)
  t.equal((await get(p.a, '/reports', { cookie: p.alice })).status, 403)
  t.equal((await admin(p.b, p.adminOnB, 'PATCH', 'alice', { tags: 'admin' })).status, 200)
  t.equal((await get(p.b, '/reports', { cookie: p.alice })).status, 200, 'on B at once')
  t.ok(await eventually(async () => (await get(p.a, '/reports', { cookie: p.alice })).status === 200), 'on A (polled)')
  for (const base of [p.a, p.b]) t.equal((await get(base, '/orders', { cookie: p.alice })).status, 403, 'no longer member')
})

test('disabled with the CLI on the shared file: refused on both within watchInterval', redis, async (t) => {
  const p = await pair(t)
  t.equal(await cli(p.dir, ['disable', 'alice']), 0)
  for (const base of [p.a, p.b]) t.ok(await eventually(async () => (await get(base, '/orders', { cookie: p.alice })).status === 403), `refused on ${base} (polled)`)
  await refusedOnBoth(t, p, 'CLI disable')
})

test('dozens of parallel requests on A and B racing a disable on B: none started after it is done gets through', redis, async (t) => {
  const p = await pair(t)
  await raceChange(t, [p.a, p.b], p.alice, 16, async () => {
    t.equal((await admin(p.b, p.adminOnB, 'PATCH', 'alice', { enabled: false })).status, 200, 'disabled on B')
  })
  await refusedOnBoth(t, p, 'after the race')
})

test('sign-ins racing a disable on B: no session they made authorises a request started after the disable plus watchInterval', redis, async (t) => {
  const p = await pair(t)
  const cookies: string[] = []
  let running = true
  const signIns = Array.from({ length: 12 }, async (_v, i) => {
    // eslint-disable-next-line no-unmodified-loop-condition -- the test clears it while this loop awaits
    while (running) {
      const res = await fetch(`${i % 2 === 0 ? p.a : p.b}/_server/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ identity: 'alice', password: 'alice-pass' }),
        signal: hangSignal()
      })
      const line = res.headers.getSetCookie().find((l) => l.startsWith('session_id='))
      if (res.status === 200 && line !== undefined) cookies.push(line.split(';')[0]!)
    }
  })
  await eventually(async () => cookies.length >= 12)
  t.equal((await admin(p.b, p.adminOnB, 'PATCH', 'alice', { enabled: false })).status, 200)
  const done = Date.now()
  running = false
  await Promise.all(signIns)
  t.ok(cookies.length >= 12, `${cookies.length} sessions made, some of them by sign-ins that finished after the disable`)
  // The documented bound: another instance's view of users.json may lag by watchInterval (250 ms).
  await eventually(async () => Date.now() > done + 250)
  const answers = await Promise.all(cookies.flatMap((cookie) => [p.a, p.b].map(async (base) => (await get(base, '/orders', { cookie })).status)))
  t.same(answers.filter((s) => s !== 403), [], `all ${answers.length} requests with those sessions are refused, on A and on B`)
})
