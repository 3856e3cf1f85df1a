// A last line without its \n, found by a writer under the lock (D-AUTH-23, D-AUTH-35):
// a write cut short, or one still under way by a holder whose lock was
// taken over. Truncated only once the writer has seen the file still for
// 10 s on its own clock (D-AUTH-39); taken back at once by a writer whose
// own write failed.
import { test } from 'tap'
import { appendFileSync, mkdirSync, readFileSync, statSync, utimesSync } from 'node:fs'
import { createHash } from 'node:crypto'
import { join } from 'node:path'
import { FileApiKeyStore } from '@fastify-gatehouse/files'
import { stillClock } from '../src/stores/still-clock.js'
import { fakeClockOn } from '../../../test-helpers/clock.js'
import { readStoreFile, writeStoreFile } from '../../../test-helpers/store-files.js'
import { waitUntil } from '../../../test-helpers/wait.js'
import { as, hookFs } from './helpers/fs-hooks.js'
import { countLooks, moreLooks } from './helpers/locks.js'

const WHEN = '2026-01-01T00:00:00.000Z'
const SECRET = 'k'.repeat(43)
const SECRET_HASH = 'sha256$' + createHash('sha256').update(SECRET).digest('base64url')
const keyRecord = (keyId: string, label: string) => ({ keyId, label, tags: [], enabled: true, expiresAt: null, createdAt: WHEN, lastUsedAt: null, secretHash: SECRET_HASH })
const FIRST = '0000000000000001'
const SLOW = '0000000000000002'
// The line the slow holder is writing, cut where its write has got to.
const SLOW_LINE = JSON.stringify({ put: keyRecord(SLOW, 'slow') }) + '\n'
const CUT = 40

/**
 * A store file whose lock holder stopped its heartbeat (its lock goes
 * stale once seen unchanged for 10 s) in the middle of appending a line.
 * Its owner is not known here (another machine's holder is not either).
 */
function slowHolder (dir: string, now: number): string {
  const path = join(dir, 'keys.json')
  writeStoreFile(path, 'keys', [keyRecord(FIRST, 'first')])
  appendFileSync(path, SLOW_LINE.slice(0, CUT))
  const lock = `${path}.lock`
  mkdirSync(lock)
  // A minute old by this machine's clock: only what the new writer sees counts (D-AUTH-39).
  const at = new Date(now - 60_000)
  utimesSync(lock, at, at)
  return path
}

/**
 * Starts `store.issue` as party W, and lets W's clock pass the 10 s after
 * which it takes the slow holder's lock over; resolves once it has.
 */
async function takeOverSlowHolder (t: Parameters<typeof hookFs>[0], path: string, clock: { advance: (ms: number) => void }, store: FileApiKeyStore): Promise<{ issuing: Promise<unknown>, settled: () => boolean }> {
  const looker = countLooks(t, `${path}.lock`, ['W']).W!
  let settled = false
  const issuing = as('W', () => store.issue({ label: 'new' }))
  issuing.then(() => { settled = true }, () => { settled = true })
  await moreLooks(looker, 1, 'the new writer to look at the lock')
  clock.advance(10_001)
  // The new writer takes the stale lock over and finds the partial line.
  await waitUntil(() => settled || lockToken(path) !== undefined, { what: 'the new writer to take the stale lock over' })
  return { issuing, settled: () => settled }
}

const lockToken = (path: string): string | undefined => {
  try {
    return (JSON.parse(readFileSync(join(`${path}.lock`, 'owner'), 'utf8')) as { token: string }).token
  } catch {
    return undefined
  }
}

test('a partial last line that may still be under way is waited for, not truncated: the slow holder\'s line and the new one both land whole', async (t) => {
  // The writer's clock stands still once it has the lock: the file never looks still for 10 s, however slow the machine.
  const clock = fakeClockOn(t, stillClock)
  const path = slowHolder(t.testdir({}), Date.now())
  const store = await FileApiKeyStore.open(path)
  t.teardown(() => store.close())
  const { issuing, settled } = await takeOverSlowHolder(t, path, clock, store)
  t.notOk(settled(), 'the new writer waits while the partial line may still be written')
  t.equal(statSync(path).size, readFileSync(path, 'utf8').lastIndexOf('\n') + 1 + CUT, 'the partial line is still there')
  // The slow holder's write goes on and ends its line.
  appendFileSync(path, SLOW_LINE.slice(CUT))
  const { record } = await issuing as { record: { keyId: string } }
  const file = readStoreFile(path)
  t.equal(file.tail, '')
  t.same(file.entries.map((e) => (e.put as { label: string }).label), ['first', 'slow', 'new'], 'every line whole, in order')
  t.same([...file.records.keys()], [FIRST, SLOW, record.keyId])
})

test('a partial last line unchanged for 10 s is truncated by the next writer', async (t) => {
  const clock = fakeClockOn(t, stillClock)
  const path = slowHolder(t.testdir({}), Date.now())
  const store = await FileApiKeyStore.open(path)
  t.teardown(() => store.close())
  const { issuing, settled } = await takeOverSlowHolder(t, path, clock, store)
  // Each time the writer reads the file, it looks at the partial line: once seen, 10 s count from there.
  let reads = 0
  hookFs(t, ['open'], (_fn, args, who) => { if (who === 'W' && args[0] === path && args[1] === 'r') reads++ })
  await waitUntil(() => settled() || reads >= 3, { what: 'the new writer to look at the partial line' })
  t.notOk(settled(), 'waiting: the file has not been seen still for 10 s yet')
  // 10 s more without a write: the holder crashed (or will find its lock gone before writing again).
  clock.advance(10_001)
  await issuing
  const file = readStoreFile(path)
  t.equal(file.tail, '', 'the partial line is gone')
  t.same(file.entries.map((e) => (e.put as { label: string }).label), ['first', 'new'])
})

test('a writer whose own write is cut short (a full disk) takes the partial line back at once', async (t) => {
  const dir = t.testdir({})
  const path = join(dir, 'keys.json')
  const store = await FileApiKeyStore.open(path)
  t.teardown(() => store.close())
  await store.issue({ label: 'first' })
  const before = readFileSync(path, 'utf8')
  let cut = false
  hookFs(t, ['open'], async (_fn, args, who) => {
    if (who !== 'S' || cut || args[0] !== path || args[1] !== 'a') return
    cut = true
    // The real file, whose write stops half way with ENOSPC.
    const { open } = await import('node:fs/promises')
    const handle = await open(path, 'a', 0o600)
    handle.writeFile = async (data: string | Uint8Array) => {
      await handle.write(String(data).slice(0, 30))
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })
    }
    return handle
  })
  await t.rejects(as('S', () => store.issue({ label: 'second' })), { code: 'ENOSPC' })
  t.ok(cut)
  t.equal(readFileSync(path, 'utf8'), before, 'the half line was taken back')
  await store.issue({ label: 'third' })
  t.same(readStoreFile(path).entries.map((e) => (e.put as { label: string }).label), ['first', 'third'])
})
