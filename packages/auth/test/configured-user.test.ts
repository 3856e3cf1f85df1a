// Issue 25, item 1: a user given in configuration has the same password hash,
// and so the same credential stamp, on every instance. D-AUTH-70, D-SESSION-27.
import { test } from 'tap'
import { hashPassword, MemoryUserStore } from '@fastify-gatehouse/auth'

const FAST = { N: 1024, r: 8, p: 1 }

test('the same entry seeds the same stamp in two stores; another password or hash another stamp', async (t) => {
  const carolHash = await hashPassword('carol-pass-1', FAST)
  const seeded = async (bob: string, carol: string): Promise<MemoryUserStore> => {
    const store = new MemoryUserStore({ scrypt: FAST })
    await store.seed('bob', { password: bob, tags: 'member' })
    await store.seed('carol', { passwordHash: carol, tags: ['member'] })
    return store
  }
  const a = await seeded('bob-pass-1', carolHash)
  const b = await seeded('bob-pass-1', carolHash)
  const stamp = async (store: MemoryUserStore, identity: string): Promise<string | undefined> => (await store.standing(identity))?.stamp
  t.type(await stamp(a, 'bob'), 'string')
  t.equal(await stamp(a, 'bob'), await stamp(b, 'bob'), 'a password: the same stamp')
  t.equal(await stamp(a, 'carol'), await stamp(b, 'carol'), 'a passwordHash: the same stamp')
  const other = await seeded('bob-pass-2', await hashPassword('carol-pass-1', FAST))
  t.not(await stamp(other, 'bob'), await stamp(a, 'bob'), 'another password: another stamp')
  t.not(await stamp(other, 'carol'), await stamp(a, 'carol'), 'another hash (even of the same password): another stamp')
  t.not(await stamp(a, 'bob'), await stamp(a, 'carol'))

  t.equal((await a.verify('bob', 'bob-pass-1'))?.stamp, await stamp(a, 'bob'), 'verify answers the stamp')
  t.equal((await a.verify('carol', 'carol-pass-1'))?.identity, 'carol', 'a passwordHash entry verifies')
  t.equal(await a.verify('carol', 'carol-pass-2'), null)

  // Another identity with the same password: another salt, another stamp.
  await a.seed('dave', { password: 'bob-pass-1' })
  t.not(await stamp(a, 'dave'), await stamp(a, 'bob'), 'the salt is per identity')
})

test('seed replaces a user (tags, password, enabled) and keeps when it was made; setPassword still changes the stamp', async (t) => {
  const store = new MemoryUserStore({ scrypt: FAST })
  const first = await store.seed('bob', { password: 'bob-pass-1', tags: 'member' })
  await store.setEnabled('bob', false)
  const before = (await store.standing('bob'))
  t.equal(before, null, 'disabled')
  const again = await store.seed('bob', { password: 'bob-pass-1', tags: 'member,ops' })
  t.same(again.tags, ['member', 'ops'])
  t.equal(again.enabled, true)
  t.equal(again.createdAt, first.createdAt)
  const seededStamp = (await store.standing('bob'))!.stamp
  await store.setPassword('bob', 'bob-pass-1')
  t.not((await store.standing('bob'))!.stamp, seededStamp, 'a password set at run time gets a fresh salt, as before')
})

test('seed refuses an entry without exactly one of password and passwordHash, or with a bad hash', async (t) => {
  const store = new MemoryUserStore({ scrypt: FAST })
  await t.rejects(store.seed('bob', { tags: 'x' } as never), { code: 'GATEHOUSE_AUTH_STORE_INPUT', message: 'give exactly one of password or passwordHash' })
  await t.rejects(store.seed('bob', { password: 'p-pass-1', passwordHash: await hashPassword('p', FAST) } as never), { code: 'GATEHOUSE_AUTH_STORE_INPUT', message: 'give exactly one of password or passwordHash' })
  await t.rejects(store.seed('bob', { passwordHash: 'scrypt$1$x$y' }), { code: 'GATEHOUSE_AUTH_STORE_INPUT', message: /^passwordHash: Invalid password hash: expected scrypt\$N,r,p\$salt\$hash \(make one with `gatehouse users hash`\)$/ })
  await t.rejects(store.seed('bo:b', { password: 'p-pass-1' }), { code: 'GATEHOUSE_AUTH_STORE_INPUT' })
  t.equal(await store.get('bob'), null, 'nothing was added')
})
