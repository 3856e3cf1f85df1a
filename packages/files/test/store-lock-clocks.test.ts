// Stillness is judged on the watcher's own clock (D-AUTH-39): a lock or a
// partial last line counts as left only once this process has seen it
// unchanged for 10 s. Its mtime, set by a writer whose clock may be off
// either way (another host on a shared folder), is never compared with
// this process's clock.
import { test } from 'tap'
import { appendFileSync, readFileSync, statSync, utimesSync } from 'node:fs'
import { createHash } from 'node:crypto'
import { join } from 'node:path'
import { FileApiKeyStore } from '@fastify-gatehouse/files'
import { withFileLock } from '../src/stores/file-lock.js'
import { stillClock } from '../src/stores/still-clock.js'
import { fakeClockOn, fakeDateNow } from '../../../test-helpers/clock.js'
import { readStoreFile, writeStoreFile } from '../../../test-helpers/store-files.js'
import { waitUntil } from '../../../test-helpers/wait.js'
import { as, hookFs } from './helpers/fs-hooks.js'
import { countLooks, ELSEWHERE, leftLock, leftovers, moreLooks, ownerIn } from './helpers/locks.js'

const MINUTE = 60_000
const HOUR = 60 * MINUTE

test('a waiter whose clock is 15 s ahead of the holder\'s does not take over a lock its holder keeps touching', async (t) => {
  const dir = t.testdir({})
  const path = join(dir, 'keys.json')
  const lock = `${path}.lock`
  const clock = fakeClockOn(t, stillClock)
  // The holder's clock runs 15 s behind this process's: its fresh touches look 15 s old here.
  const behind = Date.now() - 15_000
  leftLock(lock, ELSEWHERE, behind, 0)
  const looker = countLooks(t, lock, ['W']).W!
  let settled = false
  let entered = false
  const waiter = as('W', () => withFileLock(path, async () => { entered = true }))
  waiter.then(() => { settled = true }, () => { settled = true })
  for (let beat = 1; beat <= 10; beat++) {
    if (settled) break
    const seen = looker.looks()
    clock.advance(2_000)
    const at = new Date(behind + beat * 2_000)
    utimesSync(lock, at, at)
    await waitUntil(() => looker.looks() > seen + 1 || settled, { what: `the waiter to look at the lock after heartbeat ${beat}` })
  }
  t.notOk(settled, '20 s of heartbeats: not taken over, still waiting')
  t.equal(ownerIn(lock).token, ELSEWHERE.token, 'the holder still has it')
  // The holder stops touching it: 10 s unchanged, as this waiter sees it.
  await moreLooks(looker, 1, 'the waiter to look at the lock again')
  clock.advance(10_001)
  await waiter
  t.ok(entered, 'taken over once still for 10 s')
  t.same(leftovers(dir), [])
})

test('a lock whose mtime is in the future (its holder\'s clock ran ahead, then it crashed) is taken over once seen unchanged for 10 s', async (t) => {
  const dir = t.testdir({})
  const path = join(dir, 'keys.json')
  const lock = `${path}.lock`
  const clock = fakeClockOn(t, stillClock)
  // This process's wall clock stands still: only its own watching can find the lock stale.
  leftLock(lock, ELSEWHERE, fakeDateNow(t).now(), -HOUR)
  const looker = countLooks(t, lock, ['W']).W!
  let entered = false
  const waiter = as('W', () => withFileLock(path, async () => { entered = true }))
  await moreLooks(looker, 2, 'the waiter to look at the lock twice')
  t.notOk(entered, 'not before 10 s')
  clock.advance(10_001)
  await waitUntil(() => entered, { what: 'the waiter to take the lock over' })
  await waiter
  t.ok(entered, 'taken over, not waited for until the 2-minute limit')
  t.same(leftovers(dir), [])
})

const SECRET_HASH = 'sha256$' + createHash('sha256').update('k'.repeat(43)).digest('base64url')
const keyRecord = (keyId: string, label: string) => ({ keyId, label, tags: [], enabled: true, expiresAt: null, createdAt: '2026-01-01T00:00:00.000Z', lastUsedAt: null, secretHash: SECRET_HASH })
const LINE = JSON.stringify({ put: keyRecord('0000000000000002', 'slow') }) + '\n'
const CUT = 40

interface HalfWritten {
  readonly path: string
  /** How many times the writer 'W' has read the file. */
  readonly reads: () => number
}

/** A store file whose writer is appending a line, cut where it has got to, the file's mtime set to `mtime`. */
function halfWritten (t: Parameters<typeof hookFs>[0], dir: string, mtime: number): HalfWritten {
  const path = join(dir, 'keys.json')
  writeStoreFile(path, 'keys', [keyRecord('0000000000000001', 'first')])
  appendFileSync(path, LINE.slice(0, CUT))
  const at = new Date(mtime)
  utimesSync(path, at, at)
  // Each time the writer reads the file, it looks at the partial line.
  let reads = 0
  hookFs(t, ['open'], (_fn, args, who) => { if (who === 'W' && args[0] === path && args[1] === 'r') reads++ })
  return { path, reads: () => reads }
}

/**
 * Opens the store at `file.path` and has a new writer ('W') start issuing a
 * key; returns once that writer has looked at the partial line three times
 * (or the issue settled first, which the caller's assertions catch).
 */
async function issueOverPartialLine (t: Parameters<typeof hookFs>[0], file: HalfWritten): Promise<{ issuing: Promise<unknown>, settled: () => boolean }> {
  const store = await FileApiKeyStore.open(file.path)
  t.teardown(() => store.close())
  let settled = false
  const issuing = as('W', () => store.issue({ label: 'new' }))
  issuing.then(() => { settled = true }, () => { settled = true })
  const from = file.reads()
  await waitUntil(() => settled || file.reads() >= from + 3, { what: 'the new writer to look at the partial line three times' })
  return { issuing, settled: () => settled }
}

test('a partial last line of a writer whose clock is a minute behind is waited for while it may still be written', async (t) => {
  fakeClockOn(t, stillClock)
  const file = halfWritten(t, t.testdir({}), Date.now() - MINUTE)
  const { issuing, settled } = await issueOverPartialLine(t, file)
  t.notOk(settled(), 'waiting: the file has not been still for 10 s as this process sees it')
  t.equal(statSync(file.path).size, readFileSync(file.path, 'utf8').lastIndexOf('\n') + 1 + CUT, 'the partial line is still there')
  appendFileSync(file.path, LINE.slice(CUT))
  await issuing
  t.same(readStoreFile(file.path).entries.map((e) => (e.put as { label: string }).label), ['first', 'slow', 'new'], 'every line whole, in order')
})

test('a partial last line whose mtime is in the future is truncated once seen unchanged for 10 s', async (t) => {
  const clock = fakeClockOn(t, stillClock)
  // This process's wall clock stands still: only its own watching can find the file still.
  const file = halfWritten(t, t.testdir({}), fakeDateNow(t).now() + HOUR)
  const { issuing, settled } = await issueOverPartialLine(t, file)
  t.notOk(settled(), 'not before 10 s')
  clock.advance(10_001)
  await waitUntil(settled, { what: 'the writer to truncate the partial line and write' })
  await issuing
  const stored = readStoreFile(file.path)
  t.equal(stored.tail, '', 'the partial line is gone')
  t.same(stored.entries.map((e) => (e.put as { label: string }).label), ['first', 'new'])
})
