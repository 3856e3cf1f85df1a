// Issue 15, item 0: the embedded stores hold 100 000 users and 100 000 keys.
// The files are written directly (one real scrypt hash, with tiny
// parameters, shared by every user); the stores must open them, verify,
// change and reopen without error. No timings here: those are measured
// outside the tests (D-AUTH-24 has the figures).
import { test } from 'tap'
import { createHash } from 'node:crypto'
import { renameSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { setImmediate as nextTurn } from 'node:timers/promises'
import { hashPassword, MemoryApiKeyStore } from '@fastify-gatehouse/auth'
import { FileApiKeyStore, FileUserStore } from '@fastify-gatehouse/files'
import { readStoreFile, writeStoreFile } from '../../../test-helpers/store-files.js'

const N = 100_000
const FAST = { N: 16, r: 1, p: 1 }
const WHEN = '2026-01-01T00:00:00.000Z'
const SECRET = 's'.repeat(43)
const SECRET_HASH = 'sha256$' + createHash('sha256').update(SECRET).digest('base64url')
const keyId = (i: number) => i.toString(16).padStart(16, '0')
const keyOf = (i: number) => `gak_${keyId(i)}_${SECRET}`

function * keyRecords (count: number) {
  for (let i = 0; i < count; i++) yield { keyId: keyId(i), label: `bot-${i}`, tags: ['ci'], enabled: true, expiresAt: null, createdAt: WHEN, lastUsedAt: null, secretHash: SECRET_HASH }
}

test(`${N} users and ${N} keys: the file stores open, verify, change and reopen`, async (t) => {
  const dir = t.testdir({})
  const users = join(dir, 'users.json')
  const keys = join(dir, 'keys.json')
  const passwordHash = await hashPassword('pw', FAST)
  writeStoreFile(users, 'users', (function * () {
    for (let i = 0; i < N; i++) yield { identity: `user-${i}`, tags: ['member'], enabled: true, createdAt: WHEN, updatedAt: WHEN, passwordHash }
  })())
  writeStoreFile(keys, 'keys', keyRecords(N))
  t.ok(statSync(users).size > 16 * 1024 * 1024, `users.json: ${statSync(users).size} bytes (over the 16 MiB that used to wedge the stores)`)

  const userStore = await FileUserStore.open(users, { scrypt: FAST })
  const keyStore = await FileApiKeyStore.open(keys, { watchInterval: 60_000 })
  t.teardown(() => keyStore.close())
  t.match(await userStore.verify('user-77777', 'pw'), { identity: 'user-77777', tags: ['member'] })
  t.equal(await userStore.verify('user-77777', 'wrong'), null)
  t.match(keyStore.verify(keyOf(77_777)), { label: 'bot-77777' })

  const issued = await keyStore.issue({ label: 'new-bot' })
  t.match(keyStore.verify(issued.key), { label: 'new-bot' })
  t.equal(await keyStore.revoke(keyId(5)), true)
  t.equal(keyStore.verify(keyOf(5)), null)
  t.equal(await keyStore.delete(keyId(6)), true)
  t.equal(keyStore.verify(keyOf(6)), null)
  await userStore.add('newcomer', { password: 'pw-new' })
  t.equal(await userStore.setEnabled('user-5', false), true)
  t.equal(await userStore.verify('user-5', 'pw'), null)
  t.not(await userStore.verify('newcomer', 'pw-new'), null)
  t.equal(readStoreFile(keys).entries.length, N + 3, 'each change appended one line')

  const userAgain = await FileUserStore.open(users, { scrypt: FAST })
  const keysAgain = await FileApiKeyStore.open(keys, { watchInterval: 60_000 })
  t.teardown(() => keysAgain.close())
  t.equal((await userAgain.list()).length, N + 1)
  t.equal(await userAgain.verify('user-5', 'pw'), null)
  t.not(await userAgain.verify('newcomer', 'pw-new'), null)
  t.equal((await keysAgain.list()).length, N)
  t.not(keysAgain.verify(issued.key), null)
  t.equal(keysAgain.verify(keyOf(5)), null)
  t.not(keysAgain.verify(keyOf(99_999)), null)

  // Another file renamed over the store (as a compaction by another process
  // does): read whole, in slices, while the keys read before keep answering.
  writeStoreFile(join(dir, 'next.json'), 'keys', keyRecords(N + 1))
  renameSync(join(dir, 'next.json'), keys)
  let turns = 0
  let reloaded = false
  const reload = keysAgain.list().finally(() => { reloaded = true })
  // eslint-disable-next-line no-unmodified-loop-condition -- the reload sets it while this loop awaits
  while (!reloaded) {
    if (keysAgain.verify(keyOf(77_777)) === null) t.fail('a key went unanswered during the reload')
    turns++
    await nextTurn()
  }
  t.equal((await reload).length, N + 1)
  t.ok(turns > 1, `the event loop turned ${turns} times during the reload: it ran in slices`)
  t.not(keysAgain.verify(keyOf(5)), null, 'the new file\'s keys answer after it')
  t.not(keysAgain.verify(keyOf(N)), null)
})

test(`MemoryApiKeyStore holds ${N} keys: added, revoked and deleted a key at a time`, async (t) => {
  const store = new MemoryApiKeyStore()
  for (let i = 0; i < N; i++) await store.add(keyOf(i), { label: `bot-${i}` })
  t.match(store.verify(keyOf(12_345)), { label: 'bot-12345' })
  t.equal(await store.revoke(keyId(1)), true)
  t.equal(await store.delete(keyId(2)), true)
  const issued = await store.issue({ label: 'issued' })
  t.not(store.verify(issued.key), null)
  t.equal(store.verify(keyOf(1)), null)
  t.equal(store.verify(keyOf(2)), null)
  const listed = await store.list()
  t.equal(listed.length, N)
  t.match(listed.find((k) => k.keyId === keyId(1)), { enabled: false })
  t.match(listed.find((k) => k.keyId === keyId(12_345)), { lastUsedAt: /^\d{4}-/ })
})
