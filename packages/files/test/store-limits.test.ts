// The file stores' limits: a change past one is refused before anything is
// written, and the store goes on working (D-AUTH-25).
import { test } from 'tap'
import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { type ApiKeyRecord } from '@fastify-gatehouse/auth'
import { FileApiKeyStore, FileUserStore } from '@fastify-gatehouse/files'
import { fakeDateNow } from '../../../test-helpers/clock.js'
import { readStoreFile } from '../../../test-helpers/store-files.js'

const FAST = { N: 16, r: 1, p: 1 }
const FULL = { code: 'GATEHOUSE_AUTH_STORE_FULL', statusCode: 507 }

test('a key store at maxRecords refuses the next key, writes nothing, and still verifies, revokes and deletes', async (t) => {
  const path = join(t.testdir({}), 'keys.json')
  const store = await FileApiKeyStore.open(path, { maxRecords: 3 })
  t.teardown(() => store.close())
  const keys: Array<{ key: string, record: ApiKeyRecord }> = []
  for (let i = 0; i < 3; i++) keys.push(await store.issue({ label: `k${i}` }))
  const bytes = readFileSync(path)
  await t.rejects(store.issue({ label: 'one too many' }), { ...FULL, message: 'The key store is full: it holds 3 keys, its maxRecords; delete some or raise the limit' })
  t.same(readFileSync(path), bytes, 'the file is byte for byte as it was')
  t.equal((await store.list()).length, 3)
  t.not(store.verify(keys[0]!.key), null, 'verifies')
  t.equal(await store.revoke(keys[0]!.record.keyId), true, 'revokes')
  t.equal(store.verify(keys[0]!.key), null)
  t.equal(await store.delete(keys[1]!.record.keyId), true, 'deletes')
  const again = await store.issue({ label: 'room again' })
  t.not(store.verify(again.key), null, 'a deleted key makes room')
  const reopened = await FileApiKeyStore.open(path, { maxRecords: 3 })
  t.teardown(() => reopened.close())
  t.equal((await reopened.list()).length, 3, 'and it opens')
  t.not(reopened.verify(keys[2]!.key), null)
})

test('a user store at maxRecords refuses the next user, writes nothing, and still verifies, changes and deletes', async (t) => {
  const path = join(t.testdir({}), 'users.json')
  const store = await FileUserStore.open(path, { scrypt: FAST, maxRecords: 2 })
  await store.add('alice', { password: 'pw-alice' })
  await store.add('bob', { password: 'pw-bob' })
  const bytes = readFileSync(path)
  await t.rejects(store.add('carol', { password: 'pw-carol' }), { ...FULL, message: 'The user store is full: it holds 2 users, its maxRecords; delete some or raise the limit' })
  t.same(readFileSync(path), bytes, 'the file is byte for byte as it was')
  t.equal(await store.get('carol'), null)
  t.not(await store.verify('alice', 'pw-alice'), null)
  t.equal(await store.setEnabled('alice', false), true)
  t.equal(await store.setPassword('bob', 'new-pw'), true)
  t.equal(await store.delete('alice'), true)
  await store.add('carol', { password: 'pw-carol' })
  const reopened = await FileUserStore.open(path, { scrypt: FAST, maxRecords: 2 })
  t.same((await reopened.list()).map((u) => u.identity).sort(), ['bob', 'carol'])
  t.not(await reopened.verify('bob', 'new-pw'), null)
})

test('maxFileBytes: new records stop at half of it; changes and deletes go on (compacting as needed); the file never passes it', async (t) => {
  const path = join(t.testdir({}), 'keys.json')
  const max = 4096
  const store = await FileApiKeyStore.open(path, { maxFileBytes: max })
  t.teardown(() => store.close())
  const keys: Array<{ key: string, record: ApiKeyRecord }> = []
  let refused: unknown
  for (let i = 0; i < 100 && refused === undefined; i++) {
    try {
      keys.push(await store.issue({ label: `key-${i}`, tags: 'a,b' }))
    } catch (err) {
      refused = err
    }
  }
  t.match(refused, { ...FULL, message: /^The key store is full: its keys take \d+ bytes, and a new one would pass half of its maxFileBytes \(4096\); delete some or raise the limit$/ })
  t.ok(keys.length > 3, `${keys.length} keys fit`)
  const bytes = readFileSync(path)
  t.ok(bytes.length <= max / 2 + 100, `the file holds ${bytes.length} bytes`)
  await t.rejects(store.issue({ label: 'again' }), FULL)
  t.same(readFileSync(path), bytes, 'a refused issue writes nothing')
  // Revoke, flush last uses, revoke again, …: each appends, until the file
  // would pass the limit; then it is compacted.
  const firstLine = () => readFileSync(path, 'utf8').split('\n')[0]
  const header = firstLine()
  // verify() reads Date.now(): each round's uses are later than the last.
  const clock = fakeDateNow(t)
  for (let round = 0; round < 20; round++) {
    clock.advance(1000)
    for (const { key } of keys) store.verify(key)
    await store.close() // flushes last uses (and stops the timers, which this test does not need)
    t.ok(statSync(path).size <= max, 'never past maxFileBytes')
  }
  t.not(firstLine(), header, 'compacted on the way (written whole, with a new header id)')
  t.equal(await store.revoke(keys[0]!.record.keyId), true, 'revokes')
  t.equal(await store.delete(keys[1]!.record.keyId), true, 'deletes')
  t.equal(store.verify(keys[0]!.key), null)
  t.not(store.verify(keys[2]!.key), null, 'verifies')
  t.ok(statSync(path).size <= max)
  const reopened = await FileApiKeyStore.open(path, { maxFileBytes: max })
  t.teardown(() => reopened.close())
  t.equal((await reopened.list()).length, keys.length - 1, 'it opens, with every key')
  t.match((await reopened.list()).find((k) => k.keyId === keys[2]!.record.keyId), { lastUsedAt: /^\d{4}-/ }, 'last uses kept through compaction')
  t.equal(readStoreFile(path).records.size, keys.length - 1)
})

test('a change that would not fit even compacted is refused, and nothing is written', async (t) => {
  const path = join(t.testdir({}), 'users.json')
  const max = 4096
  const store = await FileUserStore.open(path, { scrypt: FAST, maxFileBytes: max })
  const tags = Array.from({ length: 20 }, (_, i) => `tag-${i}`)
  await store.add('alice', { password: 'pw' })
  await store.add('bob', { password: 'pw' })
  // Edits are not held to half the file: they may grow records up to the limit itself.
  let refused: unknown
  for (let i = 0; i < 40 && refused === undefined; i++) {
    const many = Array.from({ length: 10 * (i + 1) }, (_, j) => `${tags[j % 20]!}-${j}`)
    try {
      await store.setTags(i % 2 === 0 ? 'alice' : 'bob', many)
    } catch (err) {
      refused = err
    }
  }
  t.match(refused, { ...FULL, message: /^The user store is full: its users would take \d+ bytes or more, over its maxFileBytes \(4096\); delete some or raise the limit$/ })
  const bytes = readFileSync(path)
  t.ok(bytes.length <= max)
  await t.rejects(store.setTags('alice', Array.from({ length: 400 }, (_, j) => `t${j}`)), FULL)
  t.same(readFileSync(path), bytes, 'nothing written')
  t.not(await store.verify('alice', 'pw'), null)
  t.equal(await store.delete('bob'), true, 'deleting makes room')
  const reopened = await FileUserStore.open(path, { scrypt: FAST, maxFileBytes: max })
  t.same((await reopened.list()).map((u) => u.identity), ['alice'])
})

test('limits and intervals are checked when the store opens: boot errors naming the option', async (t) => {
  const path = join(t.testdir({}), 'x.json')
  const cases: Array<[() => Promise<unknown>, string]> = [
    [() => FileUserStore.open(path, { maxRecords: 0 }), 'FileUserStore maxRecords: must be a positive integer'],
    [() => FileUserStore.open(path, { maxRecords: 1.5 }), 'FileUserStore maxRecords: must be a positive integer'],
    [() => FileApiKeyStore.open(path, { maxRecords: '10' as never }), 'FileApiKeyStore maxRecords: must be a positive integer'],
    [() => FileApiKeyStore.open(path, { maxFileBytes: 1000 }), 'FileApiKeyStore maxFileBytes: must be an integer from 4096 to 1099511627776 (1 TiB)'],
    [() => FileUserStore.open(path, { maxFileBytes: Number.NaN }), 'FileUserStore maxFileBytes: must be an integer from 4096 to 1099511627776 (1 TiB)'],
    [() => FileApiKeyStore.open(path, { watchInterval: -1 }), 'FileApiKeyStore watchInterval: must be 0–60000 ms'],
    [() => FileApiKeyStore.open(path, { lastUsedFlushInterval: 0 }), 'FileApiKeyStore lastUsedFlushInterval: must be 1–3600000 ms'],
    [() => FileUserStore.open(path, { watchInterval: 60_001 }), 'FileUserStore watchInterval: must be 0–60000 ms']
  ]
  for (const [open, message] of cases) {
    await t.rejects(open(), { code: 'GATEHOUSE_AUTH_INVALID_CONFIG', statusCode: 500, message }, message)
  }
})

test('an unknown option of a file store is a boot error naming it (a typo never falls back to a default)', async (t) => {
  const dir = t.testdir({})
  await t.rejects(FileUserStore.open(join(dir, 'users.json'), { maxFileSize: 1 } as never), { code: 'GATEHOUSE_AUTH_INVALID_CONFIG', message: /FileUserStore maxFileSize: unknown option/ })
  await t.rejects(FileApiKeyStore.open(join(dir, 'keys.json'), { watch_interval: 5 } as never), { code: 'GATEHOUSE_AUTH_INVALID_CONFIG', message: /FileApiKeyStore watch_interval: unknown option/ })
})
