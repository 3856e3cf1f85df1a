import { test } from 'tap'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { FileApiKeyStore } from '@fastify-gatehouse/files'
import { waitUntil } from '../../../test-helpers/wait.js'
import { readStoreFile } from '../../../test-helpers/store-files.js'
import { together, writer } from './helpers/writers.js'

// Users from several processes: stores-multiprocess-users.test.ts.

test('four processes issuing keys into one file at once lose nothing', async (t) => {
  const path = join(t.testdir({}), 'keys.json')
  let reads = 0
  const unreadable: string[] = []
  let writing = true
  // Every read while the others write sees complete lines that all parse:
  // a line is appended whole, and a reader leaves a tail without its \n alone.
  const reader = (async () => {
    // Wait quietly for the first write (the writers start meanwhile), then read as fast as possible.
    // eslint-disable-next-line no-unmodified-loop-condition -- the writers clear it while this loop awaits
    while (writing && !existsSync(path)) await new Promise((resolve) => setTimeout(resolve, 10))
    // eslint-disable-next-line no-unmodified-loop-condition -- the writers clear it while this loop awaits
    while (writing) {
      try {
        readStoreFile(path)
        reads++
      } catch (err) {
        unreadable.push((err as Error).message)
      }
      await new Promise((resolve) => setImmediate(resolve))
    }
  })()
  const results = await together('keys', path, 16, ['p0', 'p1', 'p2', 'p3']).finally(() => { writing = false })
  await reader
  t.ok(Math.max(...results.map((r) => r.start)) < Math.min(...results.map((r) => r.end)), 'the four writers were writing at the same time')
  const keys = results.flatMap((r) => r.lines)
  t.equal(keys.length, 64)
  t.same(unreadable, [], `${reads} reads during the writes, none of a line that does not parse`)
  t.ok(reads > 0)
  const store = await FileApiKeyStore.open(path)
  t.teardown(() => store.close())
  t.equal((await store.list()).length, 64, 'every record is in the file')
  t.ok(keys.every((key) => store.verify(key) !== null), 'every issued key verifies')
  t.same(readdirSync(dirname(path)).filter((f) => f.endsWith('.tmp') || f.endsWith('.lock')), [], 'no temp file or lock left behind')
})

test('four processes changing one file at once, compacting it on the way, lose nothing', async (t) => {
  const path = join(t.testdir({}), 'keys.json')
  const watcher = await FileApiKeyStore.open(path, { watchInterval: 10 })
  t.teardown(() => watcher.close())
  // 4 × 300 changes, 9 in 10 of the keys deleted again: over 1000 superseded lines.
  const results = await together('churn', path, 300, ['c0', 'c1', 'c2', 'c3'])
  t.ok(Math.max(...results.map((r) => r.start)) < Math.min(...results.map((r) => r.end)), 'the four writers were writing at the same time')
  const kept = results.flatMap((r) => r.lines)
  t.equal(kept.length, 4 * 30)
  const file = readStoreFile(path)
  const changes = 4 * 300 + 4 * 270
  t.ok(file.entries.length < changes, `compacted on the way: ${file.entries.length} lines left for ${changes} changes`)
  t.equal(file.records.size, kept.length, 'the file holds exactly the kept keys')
  t.equal(file.tail, '')
  await waitUntil(() => kept.every((key) => watcher.verify(key) !== null), { what: 'a watching store to verify every kept key' })
  t.equal((await watcher.list()).length, kept.length, 'and to hold nothing else')
  const fresh = await FileApiKeyStore.open(path)
  t.teardown(() => fresh.close())
  t.ok(kept.every((key) => fresh.verify(key) !== null))
})

test('four processes racing to take over the lock of a writer that crashed mid-line lose nothing, and drop the cut line', async (t) => {
  const path = join(t.testdir({}), 'keys.json')
  const before = await FileApiKeyStore.open(path)
  const kept = [(await before.issue({ label: 'before' })).key]
  await before.close()
  // A writer that dies holding the lock, its line cut short. The racers, in processes of their own with
  // real clocks, take the lock over once they have seen it unchanged for 10 s, and the one holding it
  // drops the line once it has seen the file still for 10 s (D-AUTH-39): about 20 s.
  await writer('crash', path, '{"put":{"keyId":"00000')
  t.ok(existsSync(`${path}.lock`), 'the crashed writer left its lock')
  const results = await together('keys', path, 16, ['r0', 'r1', 'r2', 'r3'])
  const keys = results.flatMap((r) => r.lines)
  t.equal(keys.length, 64)
  const file = readStoreFile(path)
  t.equal(file.tail, '', 'the cut line was dropped')
  t.equal(file.entries.length, 65, 'one whole line for each key, none lost')
  const store = await FileApiKeyStore.open(path)
  t.teardown(() => store.close())
  t.ok([...kept, ...keys].every((key) => store.verify(key) !== null), 'every key verifies')
  t.same(readdirSync(dirname(path)).filter((f) => f !== 'keys.json' && f !== 'barrier'), [], 'no lock, temp file or lock moved aside left behind')
})

test('a change appends one line to the file, never rewrites what is there', async (t) => {
  const path = join(t.testdir({}), 'keys.json')
  const store = await FileApiKeyStore.open(path)
  t.teardown(() => store.close())
  await store.issue({ label: 'first' })
  const before = statSync(path)
  const text = readFileSync(path, 'utf8')
  await store.issue({ label: 'second' })
  const after = statSync(path)
  t.equal(after.ino, before.ino, 'the same file')
  const now = readFileSync(path, 'utf8')
  t.ok(now.startsWith(text), 'what was there is unchanged')
  t.match(now.slice(text.length), /^\{"put":\{"keyId":"[0-9a-f]{16}","label":"second",[^\n]*\}\}\n$/, 'one line added')
  t.equal(after.mode & 0o777, 0o600)
  t.same(readdirSync(dirname(path)), ['keys.json'], 'no temp file or lock left')
})

// The store reloads the file every watchInterval (250 ms): on an idle machine
// a change shows within about that; a busy one may take longer, so the test
// polls and reports the delay rather than bounding it.
test('a running store sees keys issued and revoked by another process', async (t) => {
  const path = join(t.testdir({}), 'keys.json')
  const server = await FileApiKeyStore.open(path)
  t.teardown(() => server.close())
  const { stdout } = await writer('keys', path, '1', 'cli')
  const key = stdout.trim()
  const seen = await waitUntil(() => server.verify(key) !== null, { what: 'the issued key to verify' })
  t.pass(`issued key accepted after ${seen} ms`)
  const revoked = await writer('revoke', path, key.slice(4, 20))
  t.equal(revoked.stdout.trim(), 'true')
  const gone = await waitUntil(() => server.verify(key) === null, { what: 'the revoked key to be refused' })
  t.pass(`revoked key refused after ${gone} ms`)
})
