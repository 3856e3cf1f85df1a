import type { Test } from 'tap'
import type { UserStore } from '@fastify-gatehouse/auth'

/** The contract every UserStore keeps; `make` gives a fresh, empty store. */
export async function userStoreConformance (t: Test, make: () => Promise<UserStore>): Promise<void> {
  await t.test('add, get, verify, list without hashes', async (t) => {
    const store = await make()
    const added = await store.add('alice', { password: 'correct horse', tags: 'admin,ops' })
    t.match(added, { identity: 'alice', tags: ['admin', 'ops'], enabled: true })
    t.match(await store.get('alice'), { identity: 'alice' })
    t.equal(await store.get('bob'), null)
    t.match(await store.verify('alice', 'correct horse'), { identity: 'alice', tags: ['admin', 'ops'] })
    t.equal(await store.verify('alice', 'wrong'), null)
    t.equal(await store.verify('bob', 'correct horse'), null, 'unknown users do not verify')
    t.notMatch(JSON.stringify(await store.list()), /scrypt|hash|correct horse/i)
    const { stamp, ...verified } = (await store.verify('alice', 'correct horse'))!
    const returned = [added, await store.get('alice'), verified]
    t.notMatch(JSON.stringify(returned), /scrypt|hash|correct horse/i, 'add, get and verify never return the hash')
    t.match(stamp, /^[A-Za-z0-9_-]{22}$/, 'verify adds the credential stamp')
    t.same(Object.keys(verified).sort(), ['createdAt', 'enabled', 'identity', 'tags', 'updatedAt'])
    await t.rejects(store.add('alice', { password: 'x' }), { code: 'GATEHOUSE_AUTH_STORE_INPUT', message: 'user alice already exists' })
  })

  await t.test('disabled users never verify; enable again', async (t) => {
    const store = await make()
    await store.add('carol', { password: 'pw-carol' })
    t.equal(await store.setEnabled('carol', false), true)
    t.equal(await store.verify('carol', 'pw-carol'), null)
    t.match(await store.get('carol'), { enabled: false })
    await store.setEnabled('carol', true)
    t.not(await store.verify('carol', 'pw-carol'), null)
    t.equal(await store.setEnabled('nobody', false), false)
  })

  await t.test('setPassword, setTags, delete', async (t) => {
    const store = await make()
    await store.add('dave', { password: 'old-pw' })
    t.equal(await store.setPassword('dave', 'new-pw'), true)
    t.equal(await store.verify('dave', 'old-pw'), null)
    t.not(await store.verify('dave', 'new-pw'), null)
    t.equal(await store.setTags('dave', ['ops']), true)
    t.match(await store.get('dave'), { tags: ['ops'] })
    t.equal(await store.delete('dave'), true)
    t.equal(await store.get('dave'), null)
    t.equal(await store.delete('dave'), false)
    t.equal(await store.setPassword('nobody', 'x'), false)
  })

  await t.test('standing: current tags and credential stamp of enabled users only', async (t) => {
    const store = await make()
    await store.add('erin', { password: 'pw-erin', tags: 'a,b' })
    const first = await store.standing('erin')
    t.same(first, { tags: ['a', 'b'], stamp: (await store.verify('erin', 'pw-erin'))!.stamp }, 'the stamp verify gave')
    t.equal(await store.standing('nobody'), null)
    await store.setTags('erin', 'c')
    t.same(await store.standing('erin'), { tags: ['c'], stamp: first!.stamp }, 'new tags; the stamp stays')
    await store.setPassword('erin', 'pw-erin')
    const second = await store.standing('erin')
    t.not(second!.stamp, first!.stamp, 'setting a password (even the same one) changes the stamp')
    t.equal((await store.verify('erin', 'pw-erin'))!.stamp, second!.stamp)
    t.same(first, { tags: ['a', 'b'], stamp: first!.stamp }, 'a standing handed out earlier is not changed')
    t.throws(() => { (second!.tags as string[]).push('x') }, TypeError, 'and cannot be changed')
    await store.setEnabled('erin', false)
    t.equal(await store.standing('erin'), null, 'disabled: no standing')
    await store.setEnabled('erin', true)
    t.same(await store.standing('erin'), second)
    await store.delete('erin')
    t.equal(await store.standing('erin'), null, 'deleted: no standing')
  })

  await t.test('bad input is a coded 400', async (t) => {
    const store = await make()
    for (const [identity, user] of [['', { password: 'x' }], ['a:b', { password: 'x' }], ['a\nb', { password: 'x' }], ['ok', { password: '' }], ['ok', { password: 'x', tags: 3 }]] as const) {
      await t.rejects(store.add(identity, user as never), { code: 'GATEHOUSE_AUTH_STORE_INPUT', statusCode: 400 }, identity)
    }
    t.equal(await store.verify('ok', 'x'.repeat(5000)), null, 'an oversized password is refused without hashing it')
  })

  // Issue 13, item 6.
  await t.test('tags outside the rule grammar\'s alphabet are refused, naming the tag', async (t) => {
    const store = await make()
    await t.rejects(store.add('erin', { password: 'pw', tags: 'ops, night shift' }),
      { code: 'GATEHOUSE_AUTH_STORE_INPUT', statusCode: 400, message: 'tag "night shift" is not allowed: tags use only letters, digits and _ . : -' })
    t.equal(await store.get('erin'), null, 'not added')
    await store.add('frank', { password: 'pw', tags: 'ops' })
    await t.rejects(store.setTags('frank', ['SUPERADMIN', 'x\ny']), { code: 'GATEHOUSE_AUTH_STORE_INPUT', message: 'tag "x\\ny" is not allowed: tags use only letters, digits and _ . : -' })
    t.match(await store.get('frank'), { tags: ['ops'] }, 'unchanged')
  })
}
