import type { Test } from 'tap'
import type { SessionRecord, SessionStore } from '@gatehouse/session'

const record = (identity: string | null, expiresAt: number, data: Record<string, unknown> = {}): SessionRecord =>
  ({ identity, tags: identity === null ? [] : ['t'], data, createdAt: Date.now(), expiresAt })

/** The contract every SessionStore keeps; `make` gives a fresh, empty store. */
export async function sessionStoreConformance (t: Test, make: () => Promise<SessionStore>): Promise<void> {
  await t.test('set, get, destroy', async (t) => {
    const store = await make()
    t.equal(await store.get('k1'), null)
    await store.set('k1', record('alice', Date.now() + 60_000, { cart: [1, 2] }))
    t.match(await store.get('k1'), { identity: 'alice', tags: ['t'], data: { cart: [1, 2] } })
    await store.destroy('k1')
    t.equal(await store.get('k1'), null)
    await store.destroy('never-there')
  })

  await t.test('expired records are dropped', async (t) => {
    const store = await make()
    await store.set('old', record('alice', Date.now() + 150))
    t.not(await store.get('old'), null)
    await new Promise((resolve) => setTimeout(resolve, 250))
    t.equal(await store.get('old'), null)
  })

  await t.test('touch moves the idle deadline', async (t) => {
    const store = await make()
    await store.set('k', record('alice', Date.now() + 150))
    await store.touch('k', Date.now() + 60_000)
    await new Promise((resolve) => setTimeout(resolve, 250))
    t.match(await store.get('k'), { identity: 'alice' })
    await store.touch('unknown', Date.now() + 1000)
    t.equal(await store.get('unknown'), null, 'touch does not create')
  })

  await t.test('destroyAllFor ends every session of one identity only', async (t) => {
    const store = await make()
    const later = Date.now() + 60_000
    await store.set('a1', record('alice', later))
    await store.set('a2', record('alice', later))
    await store.set('b1', record('bob', later))
    await store.set('anon', record(null, later))
    t.equal(await store.destroyAllFor('alice'), 2)
    t.equal(await store.get('a1'), null)
    t.equal(await store.get('a2'), null)
    t.not(await store.get('b1'), null)
    t.not(await store.get('anon'), null)
    t.equal(await store.destroyAllFor('alice'), 0)
  })

  await t.test('re-setting a key under another identity re-indexes it', async (t) => {
    const store = await make()
    const later = Date.now() + 60_000
    await store.set('k', record('alice', later))
    await store.set('k', record('bob', later))
    t.equal(await store.destroyAllFor('alice'), 0)
    t.equal(await store.destroyAllFor('bob'), 1)
  })
}
