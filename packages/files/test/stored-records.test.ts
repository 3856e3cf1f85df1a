// readStoredUsers / readStoredApiKeys: a file store's records as stored
// (hashes included), for `gatehouse import`; read with the stores' own
// parsing, from either format, writing nothing.
import { test } from 'tap'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { FileApiKeyStore, FileUserStore, readStoredApiKeys, readStoredUsers } from '../src/index.js'

const FAST = { N: 1024, r: 8, p: 1 }

test('the current records of a journal, after changes and deletions, hashes included; the files untouched', async (t) => {
  const dir = t.testdir({})
  const usersPath = join(dir, 'users.json')
  const keysPath = join(dir, 'keys.json')
  const users = await FileUserStore.open(usersPath, { scrypt: FAST })
  for (const identity of ['alice', 'bob', 'carol']) await users.add(identity, { password: `${identity}-password`, tags: ['a'] })
  await users.setTags('alice', ['ops'])
  await users.setEnabled('bob', false)
  await users.delete('carol')
  const keys = await FileApiKeyStore.open(keysPath)
  t.teardown(() => keys.close())
  const one = await keys.issue({ label: 'one', tags: ['t'], expiresAt: new Date('2099-01-01T00:00:00Z') })
  const two = await keys.issue({ label: 'two', tags: [], expiresAt: null })
  await keys.revoke(two.record.keyId)
  const before = [readFileSync(usersPath), readFileSync(keysPath)]

  const stored = await readStoredUsers(usersPath)
  t.match(stored, [
    { identity: 'alice', tags: ['ops'], enabled: true, passwordHash: /^scrypt\$1024,8,1\$/ },
    { identity: 'bob', tags: ['a'], enabled: false, passwordHash: /^scrypt\$/ }
  ])
  t.equal(stored.length, 2, 'the deleted user is not there')
  const storedKeys = await readStoredApiKeys(keysPath)
  t.match(storedKeys, [
    { keyId: one.record.keyId, label: 'one', tags: ['t'], enabled: true, expiresAt: '2099-01-01T00:00:00.000Z', secretHash: /^sha256\$/ },
    { keyId: two.record.keyId, label: 'two', enabled: false, expiresAt: null }
  ])
  t.notOk(JSON.stringify(storedKeys).includes(one.key.slice(21)), 'a hash, not the secret')
  t.same([readFileSync(usersPath), readFileSync(keysPath)], before, 'nothing written')
})

test('a version 1 document, a missing file, a corrupt one', async (t) => {
  const dir = t.testdir({})
  const v1 = join(dir, 'users-v1.json')
  writeFileSync(v1, JSON.stringify({
    version: 1,
    users: [{ identity: 'dave', tags: [], enabled: true, createdAt: '2025-01-01T00:00:00.000Z', updatedAt: '2025-01-01T00:00:00.000Z', passwordHash: 'scrypt$1024,8,1$oMI4a1qZ1MFZL13gJQ8DFw$p8LhlKUX7zDvw3UD1taufG7XG4nSQ1JbusB3X1GfyY0' }]
  }))
  const text = readFileSync(v1, 'utf8')
  t.match(await readStoredUsers(v1), [{ identity: 'dave', passwordHash: /^scrypt\$1024/ }])
  t.equal(readFileSync(v1, 'utf8'), text, 'left in version 1: reading converts nothing')
  t.same(await readStoredUsers(join(dir, 'none.json')), [], 'a missing file holds nobody')
  t.same(await readStoredApiKeys(join(dir, 'none.json')), [])
  writeFileSync(join(dir, 'bad.json'), '{ not json')
  await t.rejects(readStoredApiKeys(join(dir, 'bad.json')), { code: 'GATEHOUSE_AUTH_STORE_FILE', message: /bad\.json/ })
})
