import { test } from 'tap'
import { MemoryApiKeyStore } from '@fastify-gatehouse/auth'

// The memory stores' own behaviour; their conformance suites run through the
// memory driver (components/test/memory-driver.test.ts).
test('MemoryApiKeyStore.add keeps a key the caller already holds, hashed', async (t) => {
  const store = new MemoryApiKeyStore()
  const key = 'gak_0123456789abcdef_' + 'k'.repeat(43)
  const record = await store.add(key, { label: 'from-env', tags: 'ci' })
  t.match(record, { keyId: '0123456789abcdef', label: 'from-env', tags: ['ci'], enabled: true })
  t.match(store.verify(key), { label: 'from-env' })
  t.notOk(JSON.stringify(await store.list()).includes('k'.repeat(43)))
  await t.rejects(store.add(key, { label: 'again' }), { code: 'GATEHOUSE_AUTH_STORE_INPUT', message: 'key 0123456789abcdef already exists' })
  await t.rejects(store.add('not-a-key', { label: 'x' }), { code: 'GATEHOUSE_AUTH_STORE_INPUT' })
})
