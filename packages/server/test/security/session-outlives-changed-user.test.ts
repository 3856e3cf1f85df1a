// Issue 13, item 2: disabling, deleting, re-tagging or re-passwording a user
// left their sessions fully authorised. One instance, sessions in memory,
// users in a users.json that the CLI and other stores change too.
import { test, type Test } from 'tap'
import { FileUserStore } from '@fastify-gatehouse/files'
import { MemorySessionStore } from '@fastify-gatehouse/session'
import { get, login } from '../helpers/redis-servers.js'
import { admin, ADMIN_CHANGES, ADMIN_PASSWORD, cli, raceChange, eventually, FAST, fileInstance, signIn, usersFile } from '../helpers/user-changes.js'

async function setup (t: Test): Promise<{ dir: string, path: string, base: string, users: FileUserStore, sessions: MemorySessionStore, alice: string }> {
  const dir = t.testdir({})
  const path = await usersFile(dir)
  const sessions = new MemorySessionStore()
  const instance = await fileInstance(path, sessions)
  t.teardown(() => instance.server.close())
  const alice = await signIn(instance.base, 'alice', 'alice-pass')
  t.equal((await get(instance.base, '/orders', { cookie: alice })).status, 200, 'alice is signed in')
  return { dir, path, base: instance.base, users: instance.users, sessions, alice }
}

/** Asserts that `cookie` no longer authorises: 403 with the code on a rule route, anonymous on an open one. */
async function refused (t: Test, base: string, cookie: string, what: string): Promise<void> {
  const orders = await get(base, '/orders', { cookie })
  t.equal(orders.status, 403, `${what}: 403 on a rule route`)
  t.match(await orders.json(), { code: 'GATEHOUSE_CORE_FORBIDDEN' })
  t.same(await (await get(base, '/me', { cookie })).json(), { auth: null }, `${what}: anonymous on an open route`)
}

const refusedNow = (base: string, cookie: string) => async () => (await get(base, '/orders', { cookie })).status === 403

test('disabled, deleted or re-passworded with the CLI on the shared file: the old cookie stops authorising within watchInterval', async (t) => {
  const cases: Array<[string, string[], string, (base: string) => Promise<void>]> = [
    ['disable', ['disable', 'alice'], '', async (base) => { t.equal((await login(base, 'alice', 'alice-pass')).status, 401, 'and cannot sign in again') }],
    ['delete', ['delete', 'alice'], '', async (base) => { t.equal((await login(base, 'alice', 'alice-pass')).status, 401, 'and cannot sign in again') }],
    ['passwd', ['passwd', 'alice'], 'replacement-pw\n', async (base) => {
      await eventually(async () => (await login(base, 'alice', 'replacement-pw')).status === 200)
      const fresh = await signIn(base, 'alice', 'replacement-pw')
      t.equal((await get(base, '/orders', { cookie: fresh })).status, 200, 'a sign-in with the new password works')
    }]
  ]
  for (const [name, args, stdin, after] of cases) {
    await t.test(name, async (t) => {
      const { dir, base, alice } = await setup(t)
      t.equal(await cli(dir, args, stdin), 0, `gatehouse users ${args.join(' ')}`)
      t.ok(await eventually(refusedNow(base, alice)), 'refused within the bound (polled)')
      await refused(t, base, alice, name)
      const burst = await Promise.all(Array.from({ length: 24 }, async () => (await get(base, '/orders', { cookie: alice })).status))
      t.same(burst.filter((s) => s !== 403), [], 'and stays refused under a burst')
      await after(base)
    })
  }
})

test('the session that ends is destroyed and its cookie cleared', async (t) => {
  const { base, users, sessions, alice } = await setup(t)
  await users.setEnabled('alice', false)
  const res = await get(base, '/me', { cookie: alice })
  t.same(await res.json(), { auth: null })
  t.match(res.headers.getSetCookie().join('\n'), /^session_id=; Max-Age=0;/, 'the cookie is cleared')
  t.equal(sessions.destroyAllFor('alice'), 0, 'no session of alice is left in the store')
})

test('re-tagged through another store on the same file: the next requests carry the new tags (within watchInterval)', async (t) => {
  const { path, base, alice } = await setup(t)
  t.equal((await get(base, '/reports', { cookie: alice })).status, 403, 'not admin yet')
  const other = await FileUserStore.open(path, { scrypt: FAST })
  await other.setTags('alice', 'admin')
  t.ok(await eventually(async () => (await get(base, '/reports', { cookie: alice })).status === 200), 'admin now (polled)')
  t.equal((await get(base, '/orders', { cookie: alice })).status, 403, 'and no longer member')
  t.same(await (await get(base, '/me', { cookie: alice })).json(), { auth: { identity: 'alice', tags: ['admin'], backend: 'session' } })
})

test('changed through the server\'s own UserStore methods: the very next request follows', async (t) => {
  const { base, users, alice } = await setup(t)
  await users.setTags('alice', ['admin', 'member'])
  t.equal((await get(base, '/reports', { cookie: alice })).status, 200, 're-tagged: at once')
  await users.setPassword('alice', 'another-pass')
  await refused(t, base, alice, 'new password')
  const again = await signIn(base, 'alice', 'another-pass')
  t.equal((await get(base, '/orders', { cookie: again })).status, 200)
  await users.delete('alice')
  await refused(t, base, again, 'deleted')
})

test('through the admin API: at once, and the user\'s sessions are gone from the store', async (t) => {
  for (const [name, method, body] of ADMIN_CHANGES) {
    await t.test(name, async (t) => {
      const { base, sessions, alice } = await setup(t)
      const second = await signIn(base, 'alice', 'alice-pass')
      const adminCookie = await signIn(base, 'admin', ADMIN_PASSWORD)
      const res = await admin(base, adminCookie, method, 'alice', body)
      t.equal(res.status, 200, await res.text())
      t.equal(sessions.destroyAllFor('alice'), 0, 'destroyAllFor ran: no session of alice left')
      await refused(t, base, alice, name)
      await refused(t, base, second, `${name} (another device)`)
      t.equal((await get(base, '/me', { cookie: adminCookie })).status, 200)
    })
  }
  await t.test('re-tagged: the next request has the new tags; the session lives on', async (t) => {
    const { base, alice } = await setup(t)
    const adminCookie = await signIn(base, 'admin', ADMIN_PASSWORD)
    t.equal((await admin(base, adminCookie, 'PATCH', 'alice', { tags: 'admin' })).status, 200)
    t.equal((await get(base, '/reports', { cookie: alice })).status, 200)
    t.equal((await get(base, '/orders', { cookie: alice })).status, 403)
  })
})

test('dozens of parallel requests racing a disable: none started after the disable is done gets through', async (t) => {
  await t.test('admin API (at once)', async (t) => {
    const { base, alice } = await setup(t)
    const adminCookie = await signIn(base, 'admin', ADMIN_PASSWORD)
    await raceChange(t, [base], alice, 24, async () => {
      t.equal((await admin(base, adminCookie, 'PATCH', 'alice', { enabled: false })).status, 200)
    })
  })
  await t.test('CLI (within watchInterval, 250 ms)', async (t) => {
    const { dir, base, alice } = await setup(t)
    await raceChange(t, [base], alice, 24, async () => {
      t.equal(await cli(dir, ['disable', 'alice']), 0)
    }, 250)
  })
})
