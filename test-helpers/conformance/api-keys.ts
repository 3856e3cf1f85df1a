import type { Test } from 'tap'
import type { ApiKeyStore } from '@fastify-gatehouse/auth'
import { fakeDateNow } from '../clock.js'

/** The contract every ApiKeyStore keeps; `make` gives a fresh, empty store. */
export async function apiKeyStoreConformance (t: Test, make: () => Promise<ApiKeyStore>): Promise<void> {
  await t.test('issue returns the key once; the record never holds the secret', async (t) => {
    const store = await make()
    const { key, record } = await store.issue({ label: 'ci-bot', tags: 'read, write' })
    t.match(key, /^gak_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/)
    t.equal(key.slice(4, 20), record.keyId)
    t.match(record, { label: 'ci-bot', tags: ['read', 'write'], enabled: true, expiresAt: null, lastUsedAt: null })
    t.match(record.createdAt, /^\d{4}-\d{2}-\d{2}T/)
    const listed = await store.list()
    t.equal(listed.length, 1)
    const text = JSON.stringify(listed)
    t.notOk(text.includes(key.slice(21)), 'the secret is not listed')
    t.notMatch(text, /sha256|secretHash|hash/i, 'no hash is listed')
    const fields = ['createdAt', 'enabled', 'expiresAt', 'keyId', 'label', 'lastUsedAt', 'tags']
    t.same(Object.keys(record).sort(), fields, 'the issued record has only the public fields')
    t.same(Object.keys((await store.verify(key))!).sort(), fields, 'so has the verified record')
    t.same(Object.keys(listed[0]!).sort(), fields, 'and the listed one')
  })

  await t.test('verify: valid, wrong secret, unknown id, malformed, revoked', async (t) => {
    const store = await make()
    const { key, record } = await store.issue({ label: 'svc', tags: ['ops'] })
    t.match(await store.verify(key), { keyId: record.keyId, label: 'svc', tags: ['ops'] })
    t.equal(await store.verify(key.slice(0, -1) + (key.endsWith('A') ? 'B' : 'A')), null, 'wrong secret')
    t.equal(await store.verify(`gak_ffffffffffffffff_${key.slice(21)}`), null, 'unknown id')
    t.equal(await store.verify('gak_nope'), null, 'malformed')
    t.equal(await store.revoke(record.keyId), true)
    t.equal(await store.verify(key), null, 'revoked')
    t.match(await store.list(), [{ keyId: record.keyId, enabled: false }], 'revoke keeps the record, disabled')
    t.equal(await store.revoke('0000000000000000'), false)
  })

  await t.test('expiry', async (t) => {
    const store = await make()
    await t.rejects(store.issue({ label: 'past', expiresAt: new Date(Date.now() - 1000) }), { code: 'GATEHOUSE_AUTH_STORE_INPUT' })
    // Every store takes what PostgreSQL can hold, so a key moves between them.
    const last = await store.issue({ label: 'last', expiresAt: new Date('9999-12-31T23:59:59.999Z') })
    t.equal(last.record.expiresAt, '9999-12-31T23:59:59.999Z', 'the last millisecond of year 9999')
    for (const expiresAt of [new Date('9999-12-31T23:00:00-05:00'), new Date(8.64e15)]) {
      await t.rejects(store.issue({ label: 'too far', expiresAt }), { code: 'GATEHOUSE_AUTH_STORE_INPUT', statusCode: 400, message: 'expiresAt must be a date in the future, before year 10000 (UTC)' }, expiresAt.toISOString())
    }
    // verify() reads Date.now(): faked, so that "not yet expired" holds
    // however slow the machine (issue() checks against the real time).
    const clock = fakeDateNow(t)
    const { key } = await store.issue({ label: 'short', expiresAt: new Date(Date.now() + 60_000) })
    t.not(await store.verify(key), null)
    clock.advance(60_001)
    t.equal(await store.verify(key), null, 'expired')
  })

  await t.test('delete', async (t) => {
    const store = await make()
    const { key, record } = await store.issue({ label: 'gone' })
    t.equal(await store.delete(record.keyId), true)
    t.equal(await store.verify(key), null)
    t.same(await store.list(), [])
    t.equal(await store.delete(record.keyId), false)
  })

  await t.test('bad input is a coded 400', async (t) => {
    const store = await make()
    for (const input of [{ label: '' }, { label: 'a\nb' }, { label: 'x'.repeat(201) }, { label: 'ok', tags: [1] }, { label: 'ok', expiresAt: new Date('nope') }]) {
      await t.rejects(store.issue(input as never), { code: 'GATEHOUSE_AUTH_STORE_INPUT', statusCode: 400 }, JSON.stringify(input))
    }
  })

  // Issue 13, item 6.
  await t.test('tags outside the rule grammar\'s alphabet are refused, naming the tag', async (t) => {
    const store = await make()
    await t.rejects(store.issue({ label: 'bot', tags: ['ops', 'a|b'] }),
      { code: 'GATEHOUSE_AUTH_STORE_INPUT', statusCode: 400, message: 'tag "a|b" is not allowed: tags use only letters, digits and _ . : -' })
    t.same(await store.list(), [], 'nothing issued')
  })
}
