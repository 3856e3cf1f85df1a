// The file stores' lock (src/stores/file-lock.ts): who may take a stale lock
// over, and what a holder that lost its lock does. Races are stopped at the
// exact step with fs hooks (helpers/fs-hooks.ts), never by timing; the
// stillness a waiter watches for is on its stillClock, which the tests move.
// D-AUTH-32 to D-AUTH-36, D-AUTH-39.
import { test } from 'tap'
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { FileApiKeyStore } from '@fastify-gatehouse/files'
import { withFileLock } from '../src/stores/file-lock.js'
import { newOwner } from '../src/stores/lock-owner.js'
import { stillClock } from '../src/stores/still-clock.js'
import { fakeClockOn } from '../../../test-helpers/clock.js'
import { collect, stopChild, waitForOutput } from '../../../test-helpers/child.js'
import { waitUntil } from '../../../test-helpers/wait.js'
import { as, gate, hookFs } from './helpers/fs-hooks.js'
import { countLooks, ELSEWHERE, leftLock, leftovers, moreLooks, ownerIn } from './helpers/locks.js'

const HOLDER = fileURLToPath(new URL('fixtures/lock-holder.ts', import.meta.url))

test('of two processes taking over one stale lock, one wins: the other puts back the lock the winner took, and waits for it', async (t) => {
  const dir = t.testdir({})
  const path = join(dir, 'keys.json')
  const lock = `${path}.lock`
  // Left by a holder that crashed before writing its owner file (or by an older Gatehouse): only its age counts.
  leftLock(lock, undefined, Date.now())
  const clock = fakeClockOn(t, stillClock)
  const lookers = countLooks(t, lock, ['A', 'B'])
  // B judges the lock stale, then stalls right before acting on it; A takes it over meanwhile.
  const stalled = gate()
  const goOn = gate()
  let held = false
  let tries = 0
  hookFs(t, ['mkdir', 'rename', 'rmdir', 'rm'], async (fn, args, who) => {
    if (who !== 'B' || args[0] !== lock) return
    if (fn === 'mkdir') {
      if (held) tries++
      return
    }
    if (!held) {
      held = true
      stalled.open()
      await goOn.opened
    }
  })
  const log: string[] = []
  const done = gate()
  const failed: unknown[] = []
  const b = as('B', () => withFileLock(path, async () => { log.push('B in'); log.push('B out') }))
  b.catch((err: unknown) => failed.push(err))
  // B watches the lock unchanged for 10 s.
  await moreLooks(lookers.B!, 1, 'B to look at the lock')
  clock.advance(10_001)
  await stalled.opened
  const a = as('A', () => withFileLock(path, async (lease) => {
    log.push('A in')
    await done.opened
    await lease.check()
    log.push('A out')
  }))
  a.catch((err: unknown) => failed.push(err))
  await moreLooks(lookers.A!, 1, 'A to look at the lock')
  clock.advance(10_001)
  await waitUntil(() => log.includes('A in') || failed.length > 0, { what: 'A to take the stale lock over' })
  t.same(failed, [])
  const taken = ownerIn(lock).token
  goOn.open()
  // B has acted on what it judged, and tried the lock again (twice: once right after acting).
  await waitUntil(() => log.includes('B in') || tries >= 2, { what: 'B to act on its stale judgement and try the lock again' })
  t.same(log, ['A in'], 'B did not get in while A holds the lock')
  t.equal(ownerIn(lock).token, taken, 'the lock in place is still the one A took')
  done.open()
  await Promise.all([a, b])
  t.same(log, ['A in', 'A out', 'B in', 'B out'], 'A kept its lock to the end (lease.check passed), then B had it')
  t.same(leftovers(dir), [], 'no lock, and nothing moved aside, left behind')
})

test('a lock seen unchanged for 10 s is taken over when its holder has exited, or runs elsewhere', async (t) => {
  const dir = t.testdir({})
  const path = join(dir, 'keys.json')
  const lock = `${path}.lock`
  const clock = fakeClockOn(t, stillClock)
  const looker = countLooks(t, lock, ['W']).W!
  // A process of this machine that has exited: its pid is free.
  const { pid } = spawnSync(process.execPath, ['-e', ''])
  const owners = [
    [{ ...newOwner(), token: 'exited', pid }, 'an exited process of this machine'],
    [{ ...newOwner(), token: 'leaked' }, 'this process, which no longer holds it (a release that failed)'],
    [ELSEWHERE, 'a process of another machine'],
    [undefined, 'an unknown process']
  ] as const
  for (const [owner, whose] of owners) {
    leftLock(lock, owner, Date.now())
    const taking = as('W', () => withFileLock(path, async () => ownerIn(lock).token))
    await moreLooks(looker, 2, 'the waiter to look at the lock')
    t.ok(existsSync(lock), `a lock of ${whose}, not taken over before it has been seen unchanged for 10 s`)
    clock.advance(10_001)
    const token = await taking
    t.not(token, owner?.token, `a lock of ${whose}, taken over`)
    t.notOk(existsSync(lock), 'and released')
  }
  t.same(leftovers(dir), [])
})

test('a lock whose holder still runs on this machine is never taken over, however long untouched; a waiter gives up naming it', { skip: process.platform === 'linux' ? false : 'reads /proc (Linux)' }, async (t) => {
  const dir = t.testdir({})
  const path = join(dir, 'keys.json')
  const lock = `${path}.lock`
  const holder = spawn(process.execPath, ['--import', 'tsx', '--conditions=gatehouse-src', HOLDER, path])
  const output = collect(holder)
  t.teardown(() => stopChild(holder, 'SIGKILL'))
  await waitForOutput(holder, output, /holding/)
  // Stopped: it runs no more, its heartbeat with it (a machine too busy to run it, a debugger).
  holder.kill('SIGSTOP')
  const state = (): string => { const stat = readFileSync(`/proc/${holder.pid}/stat`, 'utf8'); return stat.slice(stat.lastIndexOf(')') + 2)[0] ?? '' }
  await waitUntil(() => state() === 'T', { what: 'the holder to be stopped' })
  // The waiter's clock stands still unless moved, so a busy machine cannot make it give up early.
  const clock = fakeClockOn(t, stillClock)
  const token = ownerIn(lock).token
  const looker = countLooks(t, lock, ['C']).C!
  let entered = false
  const waiter = as('C', () => withFileLock(path, async () => { entered = true }))
  await moreLooks(looker, 3, 'the waiter to look at the lock three times')
  t.notOk(entered, 'not taken over')
  t.equal(ownerIn(lock).token, token, 'the holder still has it')
  // 10 s more without a touch: the waiter gives up, naming the holder, and leaves the lock alone.
  clock.advance(10_001)
  await t.rejects(waiter, { code: 'GATEHOUSE_AUTH_STORE_FILE', message: new RegExp(`keys\\.json: could not lock .*keys\\.json\\.lock: its holder, process ${holder.pid} on .*, is running but has not touched it for 10 s \\(stopped, or its event loop blocked\\?\\)$`) })
  t.equal(ownerIn(lock).token, token)
  // Going on, the holder lets go; the next change gets the lock.
  holder.kill('SIGCONT')
  holder.stdin.write('\n')
  await waitForOutput(holder, output, /released/)
  t.equal(await withFileLock(path, async () => 'in'), 'in')
  t.same(leftovers(dir), [])
})

test('a waiter waits while the lock changes hands or its holder touches it, past 5 s and 10 s', async (t) => {
  const dir = t.testdir({})
  const path = join(dir, 'keys.json')
  const lock = `${path}.lock`
  const clock = fakeClockOn(t, stillClock)
  // A live holder doing a long job (a compaction): it touches the lock as its heartbeat does.
  const start = Date.now()
  leftLock(lock, { ...newOwner(), token: 'compacting' }, start, 0)
  const looker = countLooks(t, lock, ['W']).W!
  let entered = false
  let settled = false
  const waiter = as('W', () => withFileLock(path, async () => { entered = true }))
  waiter.then(() => { settled = true }, () => { settled = true })
  for (let beat = 1; beat <= 30; beat++) {
    if (settled) break
    const seen = looker.looks()
    clock.advance(2_000)
    const at = new Date(start + beat * 2_000)
    utimesSync(lock, at, at)
    await waitUntil(() => looker.looks() > seen + 1 || settled, { what: `the waiter to look at the lock after heartbeat ${beat}` })
  }
  t.notOk(settled, '60 s of heartbeats: still waiting, no error')
  rmSync(lock, { recursive: true })
  await waiter
  t.ok(entered)
})

test('a holder whose lock was taken over writes nothing, and leaves the new holder\'s lock alone', async (t) => {
  const dir = t.testdir({})
  const path = join(dir, 'keys.json')
  const lock = `${path}.lock`
  const store = await FileApiKeyStore.open(path)
  t.teardown(() => store.close())
  await store.issue({ label: 'first' })
  const before = readFileSync(path, 'utf8')
  // While this store holds the lock, right before it writes, another process takes the lock over
  // (this one stalled for 10 s on a busy machine of a shared folder, say).
  let stolen = false
  hookFs(t, ['open'], (_fn, args, who) => {
    if (who !== 'S' || stolen || args[0] !== join(lock, 'owner')) return
    stolen = true
    renameSync(lock, `${lock}.taken`)
    rmSync(`${lock}.taken`, { recursive: true })
    mkdirSync(lock)
    writeFileSync(join(lock, 'owner'), JSON.stringify(ELSEWHERE))
  })
  await t.rejects(as('S', () => store.issue({ label: 'second' })), { code: 'GATEHOUSE_AUTH_STORE_FILE', message: /keys\.json: lost its lock .*keys\.json\.lock \(now held by process 4242 on elsewhere\): taken over after this process left it untouched for 10 s, or removed by hand; the change was not written$/ })
  t.ok(stolen)
  t.equal(readFileSync(path, 'utf8'), before, 'nothing written')
  t.ok(existsSync(lock), 'the new holder\'s lock is still there')
  t.equal(ownerIn(lock).token, ELSEWHERE.token)
})
