import type { Test } from 'tap'
import type { SessionRecord, SessionStore } from '@fastify-gatehouse/session'
import { realClock, type TestClock } from '../clock.js'

const record = (identity: string | null, expiresAt: number, data: Record<string, unknown> = {}, version = 1): SessionRecord =>
  ({ identity, tags: identity === null ? [] : ['t'], data, createdAt: Date.now(), expiresAt, version, via: identity === null ? null : 'password', stamp: identity === null ? null : 's1' })

/**
 * The contract every SessionStore keeps; `make` gives a fresh, empty store.
 * `clock` is the store's clock: a fake one for a store with a `now` option,
 * so expiry does not depend on the machine's speed; the real one otherwise.
 */
export async function sessionStoreConformance (t: Test, make: () => Promise<SessionStore>, clock: TestClock = realClock()): Promise<void> {
  await t.test('set, get, destroy', async (t) => {
    const store = await make()
    t.equal(await store.get('k1'), null)
    t.equal(await store.set('k1', record('alice', Date.now() + 60_000, { cart: [1, 2] }), null), 'written')
    t.match(await store.get('k1'), { identity: 'alice', tags: ['t'], data: { cart: [1, 2] }, version: 1, via: 'password', stamp: 's1' })
    await store.destroy('k1')
    t.equal(await store.get('k1'), null)
    await store.destroy('never-there')
  })

  await t.test('the claims of a sign-in are kept as written, through a change and a new id; a record without them has none', async (t) => {
    const store = await make()
    const later = Date.now() + 60_000
    // From JSON, as a verified token's payload is: "__proto__" is an own claim there.
    const parsed = JSON.parse('{"iss":"https://idp.example","sub":"u-1","aud":["app"],"auth_time":1700000000,"name":"Zoë \\"Z\\" O\'Brien","address":{"country":"FR"},"n":0.5,"ok":true,"none":null,"__proto__":"a claim"}') as Record<string, unknown>
    const written = { ...record('alice', later), via: 'oidc:corp', stamp: null, claims: parsed }
    await store.set('c', written, null)
    t.same(await store.get('c'), written)
    t.same(Object.keys((await store.get('c'))!.claims!), Object.keys(parsed), 'every claim, "__proto__" an own one')
    await store.set('d', { ...record('alice', later, { x: 1 }, 2), via: 'oidc:corp', stamp: null, claims: parsed }, { key: 'c', version: 1 })
    t.same((await store.get('d'))?.claims, parsed, 'moved with a new id')
    t.same((await store.listFor('alice', 10))[0]?.record.claims, parsed, 'and listed')
    await store.set('p', record('alice', later), null)
    t.notOk((await store.get('p'))?.claims, 'none written: none read')
    await store.set('n', { ...record('bob', later), claims: null }, null)
    t.notOk((await store.get('n'))?.claims, 'null: none')
  })

  await t.test('expired records are dropped', async (t) => {
    const store = await make()
    const deadline = clock.now() + clock.window
    await store.set('old', record('alice', deadline), null)
    t.not(await store.get('old'), null)
    await clock.passTo(deadline)
    t.equal(await store.get('old'), null)
  })

  await t.test('touch moves the idle deadline later, never earlier, and keeps the version', async (t) => {
    const store = await make()
    const deadline = clock.now() + clock.window
    await store.set('k', record('alice', deadline), null)
    const later = clock.now() + 60_000
    await store.touch('k', later)
    await store.touch('k', clock.now() + 30_000)
    await clock.passTo(deadline)
    t.match(await store.get('k'), { identity: 'alice', version: 1, expiresAt: later })
    await store.touch('unknown', Date.now() + 1000)
    t.equal(await store.get('unknown'), null, 'touch does not create')
  })

  await t.test('touch never brings back a destroyed or expired record', async (t) => {
    const store = await make()
    await store.set('gone', record('alice', Date.now() + 60_000), null)
    await store.destroy('gone')
    await store.touch('gone', Date.now() + 60_000)
    t.equal(await store.get('gone'), null, 'destroyed stays destroyed')
    // Only its end matters: on a stalled machine it may be written expired.
    const deadline = clock.now() + 50
    await store.set('short', record('alice', deadline), null)
    await clock.passTo(deadline)
    await store.touch('short', clock.now() + 60_000)
    t.equal(await store.get('short'), null, 'expired stays expired')
    t.equal(await store.destroyAllFor('alice'), 0, 'and is not indexed again')
  })

  await t.test('a new session is created only where no record is', async (t) => {
    const store = await make()
    const later = Date.now() + 60_000
    t.equal(await store.set('k', record('alice', later, { a: 1 }), null), 'written')
    t.equal(await store.set('k', record('bob', later, { b: 2 }), null), 'conflict', 'the key is taken')
    t.match(await store.get('k'), { identity: 'alice', data: { a: 1 }, version: 1 }, 'the first one is kept')
  })

  await t.test('a change is written only over the version it was loaded at', async (t) => {
    const store = await make()
    const later = Date.now() + 60_000
    await store.set('k', record('alice', later, { n: 0 }), null)
    t.equal(await store.set('k', record('alice', later, { n: 1 }, 2), { key: 'k', version: 1 }), 'written')
    t.match(await store.get('k'), { data: { n: 1 }, version: 2 }, 'the version moves with each write')
    t.equal(await store.set('k', record('alice', later, { n: 'stale' }, 2), { key: 'k', version: 1 }), 'conflict', 'a second write of version 1 is refused')
    t.match(await store.get('k'), { data: { n: 1 }, version: 2 }, 'and changes nothing')
    await store.touch('k', later + 1000)
    t.equal(await store.set('k', record('alice', later, { n: 2 }, 3), { key: 'k', version: 2 }), 'written', 'a touch does not move the version')
  })

  await t.test('a destroyed session stays destroyed: a write that depends on it is dropped', async (t) => {
    const store = await make()
    const later = Date.now() + 60_000
    await store.set('k', record('alice', later), null)
    await store.destroy('k')
    t.equal(await store.set('k', record('alice', later, { late: true }, 2), { key: 'k', version: 1 }), 'gone')
    t.equal(await store.get('k'), null, 'not written back')
    t.equal(await store.destroyAllFor('alice'), 0, 'nor indexed')
    await store.set('j', record('alice', later), null)
    t.equal(await store.destroyAllFor('alice'), 1)
    t.equal(await store.set('j', record('alice', later, {}, 2), { key: 'j', version: 1 }), 'gone', 'destroyAllFor too')
    // Only its end matters: on a stalled machine it may be written expired.
    const deadline = clock.now() + 50
    await store.set('short', record('alice', deadline), null)
    await clock.passTo(deadline)
    t.equal(await store.set('short', record('alice', later, {}, 2), { key: 'short', version: 1 }), 'gone', 'an expired record too')
    t.equal(await store.get('short'), null)
  })

  await t.test('a regenerated id moves the record in one step, under the same conditions', async (t) => {
    const store = await make()
    const later = Date.now() + 60_000
    await store.set('old', record('alice', later, { a: 1 }), null)
    t.equal(await store.set('new', record('alice', later, { a: 1 }, 2), { key: 'old', version: 1 }), 'written')
    t.equal(await store.get('old'), null, 'the old key is gone')
    t.match(await store.get('new'), { identity: 'alice', data: { a: 1 }, version: 2 })
    t.equal(await store.destroyAllFor('alice'), 1, 'the index holds only the new key')
    t.equal(await store.set('newer', record('alice', later, {}, 3), { key: 'new', version: 2 }), 'gone', 'the source was destroyed: nothing is written')
    t.equal(await store.get('newer'), null)

    await store.set('src', record('bob', later), null)
    await store.set('taken', record('carol', later), null)
    t.equal(await store.set('taken', record('bob', later, {}, 2), { key: 'src', version: 1 }), 'conflict', 'the target key is taken')
    t.equal(await store.set('dst', record('bob', later, {}, 2), { key: 'src', version: 7 }), 'conflict', 'the source moved on')
    t.match(await store.get('src'), { identity: 'bob', version: 1 }, 'a refused move leaves the source')
    t.match(await store.get('taken'), { identity: 'carol' })
    t.equal(await store.get('dst'), null)
  })

  await t.test('destroying the key a regenerated id left ends the session it moved to, through every later move (D-SESSION-28)', async (t) => {
    const store = await make()
    const later = Date.now() + 60_000
    await store.set('m1', record('alice', later, { a: 1 }), null)
    t.equal(await store.set('m2', record('alice', later, { a: 1 }, 2), { key: 'm1', version: 1 }), 'written')
    t.equal(await store.set('m3', record('alice', later, { a: 1 }, 3), { key: 'm2', version: 2 }), 'written')
    t.equal(await store.get('m1'), null, 'an old id reads as nothing')
    t.equal(await store.get('m2'), null)
    t.equal(await store.set('m1', record('alice', later, { b: 1 }, 2), { key: 'm1', version: 1 }), 'gone', 'a write that loaded the old id finds it gone')
    await store.touch('m1', later + 1000)
    t.equal(await store.get('m1'), null, 'a touch of the old id brings nothing back')
    t.match(await store.get('m3'), { identity: 'alice', version: 3 })
    await store.destroy('m1')
    t.equal(await store.get('m3'), null, 'destroying the first id ended the session under its newest one')
    t.same(await store.listFor('alice', 10), [])

    await store.set('n1', record(null, later), null)
    t.equal(await store.set('n2', record(null, later, {}, 2), { key: 'n1', version: 1 }), 'written')
    await store.destroy('n2')
    t.equal(await store.get('n2'), null, 'the new id destroyed directly')
    await store.destroy('n1')
    await store.set('o1', record('bob', later), null)
    await store.destroy('o1')
    t.equal(await store.set('o2', record('bob', later, {}, 2), { key: 'o1', version: 1 }), 'gone', 'destroyed first: the move is refused, nothing written')
    t.equal(await store.get('o2'), null)
  })

  await t.test('destroyAllFor ends every session of one identity only', async (t) => {
    const store = await make()
    const later = Date.now() + 60_000
    await store.set('a1', record('alice', later), null)
    await store.set('a2', record('alice', later), null)
    await store.set('b1', record('bob', later), null)
    await store.set('anon', record(null, later), null)
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
    await store.set('k', record('alice', later), null)
    await store.set('k', record('bob', later, {}, 2), { key: 'k', version: 1 })
    t.equal(await store.destroyAllFor('alice'), 0)
    t.equal(await store.destroyAllFor('bob'), 1)
  })

  await t.test('of many writes racing from one version, exactly one is written', async (t) => {
    const store = await make()
    const later = Date.now() + 60_000
    await store.set('k', record('alice', later), null)
    const results = await Promise.all(Array.from({ length: 24 }, async (_v, i) => await store.set('k', record('alice', later, { i }, 2), { key: 'k', version: 1 })))
    t.equal(results.filter((r) => r === 'written').length, 1)
    t.equal(results.filter((r) => r === 'conflict').length, 23)
  })

  await t.test('listFor lists the live sessions of one identity, with their client, up to a limit', async (t) => {
    const store = await make()
    const later = Date.now() + 60_000
    const client = { address: '203.0.113.9', agent: 'Firefox 133 on Linux' }
    await store.set('a1', { ...record('alice', later, { x: 1 }), client }, null)
    await store.set('a2', record('alice', later), null)
    await store.set('b1', record('bob', later), null)
    await store.set('anon', record(null, later), null)
    const listed = (await store.listFor('alice', 100)).sort((a, b) => a.key.localeCompare(b.key))
    t.same(listed.map((e) => e.key), ['a1', 'a2'])
    t.match(listed[0]!.record, { identity: 'alice', data: { x: 1 }, version: 1, via: 'password', stamp: 's1', client })
    t.notOk(listed[1]!.record.client, 'a record written without a client lists without one')
    t.equal((await store.listFor('alice', 1)).length, 1, 'the limit holds')
    t.same(await store.listFor('nobody', 100), [])
    await store.destroy('a1')
    t.same((await store.listFor('alice', 100)).map((e) => e.key), ['a2'], 'a destroyed session is not listed')
    await store.set('a3', record('alice', later, {}, 2), { key: 'a2', version: 1 })
    t.same((await store.listFor('alice', 100)).map((e) => e.key), ['a3'], 'a regenerated id lists under its new key')
    await store.destroyAllFor('alice')
    t.same(await store.listFor('alice', 100), [])
    t.equal((await store.listFor('bob', 100)).length, 1)
  })

  await t.test('listFor: the most recently used first; the limit keeps those; Infinity lists all, below 1 none', async (t) => {
    const store = await make()
    const at = Date.now() + 60_000
    // Written in this order, used (deadline) in another: s2 is touched last.
    for (const [key, deadline] of [['s1', at + 3000], ['s2', at + 1000], ['s3', at + 4000], ['s4', at + 2000]] as const) {
      await store.set(key, record('alice', deadline), null)
    }
    await store.touch('s2', at + 5000)
    const keys = async (limit: number): Promise<string[]> => (await store.listFor('alice', limit)).map((e) => e.key)
    t.same(await keys(100), ['s2', 's3', 's1', 's4'], 'latest deadline first')
    t.same(await keys(2), ['s2', 's3'], 'over the limit, those unused longest are left out')
    t.same(await keys(2.7), ['s2', 's3'], 'a fraction is rounded down')
    t.same(await keys(Infinity), ['s2', 's3', 's1', 's4'])
    for (const none of [0, 0.5, -1, -Infinity, Number.NaN]) t.same(await store.listFor('alice', none), [], `limit ${none}: none`)
    t.same((await store.listFor('alice', 1))[0]?.record.expiresAt, at + 5000, 'the record as stored, its deadline moved by the touch')
  })

  await t.test('listFor follows a session that signs out, changes hands or is written from another client', async (t) => {
    const store = await make()
    const later = Date.now() + 60_000
    const first = { address: '203.0.113.9', agent: 'Firefox 133 on Linux' }
    const second = { address: '2001:db8::7', agent: 'Safari 17 on iOS' }
    await store.set('k1', { ...record('alice', later), client: first }, null)
    await store.set('k2', record('alice', later), null)
    t.same((await store.listFor('alice', 10)).find((e) => e.key === 'k1')?.record.client, first)
    await store.set('k1', { ...record('alice', later, {}, 2), client: second }, { key: 'k1', version: 1 })
    t.same((await store.listFor('alice', 10)).find((e) => e.key === 'k1')?.record.client, second, 'the client of the latest write')
    await store.set('k1', record(null, later, {}, 3), { key: 'k1', version: 2 })
    t.same((await store.listFor('alice', 10)).map((e) => e.key), ['k2'], 'signed out, the key kept: no longer listed')
    await store.set('k2', record('bob', later, {}, 2), { key: 'k2', version: 1 })
    t.same(await store.listFor('alice', 10), [], 'signed in as someone else: listed for them only')
    t.same((await store.listFor('bob', 10)).map((e) => e.key), ['k2'])
  })

  await t.test('listFor leaves out expired sessions', async (t) => {
    const store = await make()
    const deadline = clock.now() + clock.window
    await store.set('short', record('alice', deadline), null)
    await store.set('long', record('alice', clock.now() + clock.window + 3_600_000), null)
    await clock.passTo(deadline)
    t.same((await store.listFor('alice', 100)).map((e) => e.key), ['long'])
  })
}
