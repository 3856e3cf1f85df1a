// Two store instances on one file: each sees the other's changes (the lines
// appended since it last read, or the whole file after a compaction), and
// parallel changes from both are all kept (D-AUTH-23, D-AUTH-24).
import { test } from 'tap'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { type ApiKeyRecord } from '@fastify-gatehouse/auth'
import { FileApiKeyStore, FileUserStore } from '@fastify-gatehouse/files'
import { readStoreFile } from '../../../test-helpers/store-files.js'

const FAST = { N: 16, r: 1, p: 1 }
const firstLine = (path: string) => readFileSync(path, 'utf8').split('\n')[0]

test('a second key store reads the lines the first appends, and the whole file after it compacts', async (t) => {
  const path = join(t.testdir({}), 'keys.json')
  // Timers that never fire during the test: list() checks the file at a known moment.
  const a = await FileApiKeyStore.open(path, { watchInterval: 60_000 })
  const b = await FileApiKeyStore.open(path, { watchInterval: 60_000 })
  t.teardown(async () => { await a.close(); await b.close() })
  const one = await a.issue({ label: 'one' })
  const two = await a.issue({ label: 'two', tags: 'ops' })
  t.equal(b.verify(one.key), null, 'not seen before b checks the file')
  t.equal((await b.list()).length, 2)
  t.match(b.verify(two.key), { label: 'two', tags: ['ops'] })
  await a.revoke(one.record.keyId)
  await a.delete(two.record.keyId)
  await b.list()
  t.equal(b.verify(one.key), null, 'revoked elsewhere')
  t.equal(b.verify(two.key), null, 'deleted elsewhere')
  const header = firstLine(path)
  // 1100 changes through a: more superseded lines than live records, and over 1000 of them.
  const keys: Array<{ key: string, record: ApiKeyRecord }> = []
  for (let i = 0; i < 550; i++) {
    const issued = await a.issue({ label: `k${i}` })
    await a.delete(issued.record.keyId)
    if (i % 50 === 0) keys.push(await a.issue({ label: `kept-${i}` }))
  }
  t.not(firstLine(path), header, 'a compacted the file')
  const listed = await b.list()
  t.same(listed.map((k) => k.label).sort(), ['one', ...keys.map((k) => k.record.label)].sort(), 'b read it whole')
  t.ok(keys.every(({ key }) => b.verify(key) !== null))
  t.equal(readStoreFile(path).entries.length < 1100, true, 'the superseded lines are gone')
})

test('a second user store sees changes within watchInterval, through appends and compactions', async (t) => {
  const path = join(t.testdir({}), 'users.json')
  const a = await FileUserStore.open(path, { scrypt: FAST })
  const b = await FileUserStore.open(path, { scrypt: FAST, watchInterval: 0 })
  await a.add('alice', { password: 'pw-alice', tags: 'ops' })
  t.match(await b.standing('alice'), { tags: ['ops'] })
  await a.setEnabled('alice', false)
  t.equal(await b.verify('alice', 'pw-alice'), null)
  const header = firstLine(path)
  for (let i = 0; i < 1010; i++) await a.setTags('alice', `t${i}`)
  await a.setEnabled('alice', true)
  t.equal(firstLine(path) !== header, true, 'compacted')
  t.match(await b.verify('alice', 'pw-alice'), { tags: ['t1009'] })
  t.equal(readStoreFile(path).records.size, 1)
})

test('dozens of parallel changes from two key stores on one file are all kept', async (t) => {
  const path = join(t.testdir({}), 'keys.json')
  const a = await FileApiKeyStore.open(path, { watchInterval: 60_000 })
  const b = await FileApiKeyStore.open(path, { watchInterval: 60_000 })
  t.teardown(async () => { await a.close(); await b.close() })
  const issued = await Promise.all(Array.from({ length: 48 }, (_, i) => (i % 2 === 0 ? a : b).issue({ label: `key-${i}` })))
  t.equal(new Set(issued.map((k) => k.record.keyId)).size, 48)
  // Revoke the first 12 and delete the next 12, each through the other store, all at once.
  const done = await Promise.all(issued.slice(0, 24).map(({ record }, i) => {
    const store = i % 2 === 0 ? b : a
    return i < 12 ? store.revoke(record.keyId) : store.delete(record.keyId)
  }))
  t.ok(done.every((ok) => ok), 'every change found its key')
  for (const store of [a, b]) {
    const listed = await store.list()
    t.equal(listed.length, 36)
    t.equal(listed.filter((k) => !k.enabled).length, 12)
    t.ok(issued.slice(24).every(({ key }) => store.verify(key) !== null), 'the untouched keys verify')
    t.ok(issued.slice(0, 24).every(({ key }) => store.verify(key) === null), 'the revoked and deleted ones do not')
  }
  const file = readStoreFile(path)
  t.equal(file.records.size, 36, 'the file holds the same')
  t.equal(file.tail, '')
})

test('dozens of parallel changes from two user stores on one file are all kept', async (t) => {
  const path = join(t.testdir({}), 'users.json')
  const a = await FileUserStore.open(path, { scrypt: FAST, watchInterval: 0 })
  const b = await FileUserStore.open(path, { scrypt: FAST, watchInterval: 0 })
  await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? a : b).add(`u${i}`, { password: `pw-${i}` })))
  const changed = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? b : a).setTags(`u${i}`, `tag${i}`)))
  t.ok(changed.every((ok) => ok))
  await Promise.all([a.delete('u0'), b.delete('u1'), a.setEnabled('u2', false), b.setPassword('u3', 'new')])
  for (const store of [a, b]) {
    const users = await store.list()
    t.equal(users.length, 38)
    t.ok(users.every((u) => u.tags[0] === `tag${u.identity.slice(1)}`), 'every tag change kept')
    t.equal(await store.verify('u2', 'pw-2'), null)
    t.not(await store.verify('u3', 'new'), null)
    t.not(await store.verify('u39', 'pw-39'), null)
  }
})
