import { test } from 'tap'
import { join } from 'node:path'
import { MemoryUserStore, type UserStore } from '@fastify-gatehouse/auth'
import { FileUserStore } from '@fastify-gatehouse/files'
import { MemorySessionStore, type SessionRecord } from '@fastify-gatehouse/session'
import { AppServer } from '@fastify-gatehouse/server'
import { userSessionCheck, withUserCheck } from '../src/app-server/session-user-check.js'
import { ADMIN_PASSWORD, FAST, fileInstance, signIn, usersFile } from './helpers/user-changes.js'
import { get } from './helpers/redis-servers.js'
import { readStoreFile } from '../../../test-helpers/store-files.js'

const record = (via: string | null, stamp: string | null): SessionRecord =>
  ({ identity: 'alice', tags: ['old'], data: {}, createdAt: 0, expiresAt: 1, version: 1, via, stamp })

test('userSessionCheck: password sessions follow the user; other sessions keep their tags', async (t) => {
  const users = new MemoryUserStore({ scrypt: FAST })
  await users.add('alice', { password: 'pw-alice', tags: 'member' })
  const { stamp } = (await users.verify('alice', 'pw-alice'))!
  const check = userSessionCheck(users, 5000)
  t.same(await check('alice', record('password', stamp)), { tags: ['member'], stamp }, 'the current tags')
  t.equal(await check('alice', record('password', 'another-stamp')), null, 'signed in with another password')
  t.equal(await check('alice', record('password', null)), null, 'no stamp')
  t.equal(await check('bob', record('password', stamp)), null, 'unknown user')
  for (const via of ['oidc:corp', null]) {
    const other = record(via, null)
    t.equal(check('alice', other), other, `via ${String(via)}: not a user of the store, kept as it is`)
  }
  await users.setEnabled('alice', false)
  t.equal(await check('alice', record('password', stamp)), null, 'disabled')
})

test('withUserCheck adds the check to any session setting that is on, and keeps one of the caller\'s own', async (t) => {
  const users = new MemoryUserStore()
  const own = (): null => null
  t.equal(withUserCheck(true, undefined, 5000), true, 'no users: unchanged')
  t.equal(withUserCheck(false, users, 5000), false)
  t.equal(withUserCheck('off', users, 5000), 'off')
  for (const setting of [true, 'on', { cookieName: 'sid' }] as const) {
    const result = withUserCheck(setting, users, 5000) as Record<string, unknown>
    t.type(result.checkIdentity, 'function', JSON.stringify(setting))
  }
  t.match(withUserCheck({ cookieName: 'sid' }, users, 5000), { cookieName: 'sid' }, 'other options kept')
  t.equal((withUserCheck({ checkIdentity: own }, users, 5000) as Record<string, unknown>).checkIdentity, own)
})

test('a UserStore without standing() is a boot error naming it', async (t) => {
  const legacy = new MemoryUserStore() as unknown as Record<string, unknown>
  const store = Object.fromEntries(['verify', 'get', 'add', 'setPassword', 'setTags', 'setEnabled', 'delete', 'list'].map((m) => [m, (legacy[m] as () => unknown).bind(legacy)]))
  const server = new AppServer({ logger: false, users: store as unknown as UserStore })
  await t.rejects(server.ready(), { code: 'GATEHOUSE_SERVER_INVALID_OPTIONS', message: 'users: a UserStore must implement standing(identity) (sessions follow their user)' })
  await server.close()
})

test('booting again with the same adminPassword keeps the admin\'s hash, so its sessions live on', async (t) => {
  const dir = t.testdir({})
  const path = await usersFile(dir)
  const sessions = new MemorySessionStore()
  const first = await fileInstance(path, sessions)
  t.teardown(() => first.server.close())
  const adminCookie = await signIn(first.base, 'admin', ADMIN_PASSWORD)
  const hashOf = () => (readStoreFile(path).records.get('admin') as { passwordHash: string }).passwordHash
  const before = hashOf()
  const second = await fileInstance(path, sessions)
  t.teardown(() => second.server.close())
  t.equal(hashOf(), before, 'the second boot did not set the password again')
  t.equal((await get(second.base, '/_server/users', { cookie: adminCookie })).status, 200, 'the admin\'s session works on the new instance')
  const changed = new AppServer({ logger: false, users: await FileUserStore.open(join(dir, 'users.json'), { scrypt: FAST }), adminPassword: 'a-new-keeper-password', session: { store: sessions } })
  await changed.ready()
  t.teardown(() => changed.close())
  t.not(hashOf(), before, 'a new adminPassword does set it')
})
