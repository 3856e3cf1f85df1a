// Locks that no holder of ours would leave (D-AUTH-39): an owner file that is
// a FIFO, and a lock whose takeover never checks out. A waiter neither
// blocks nor spins on them, and gives up at the 2-minute limit whatever
// path its loop takes.
import { test } from 'tap'
import { spawnSync } from 'node:child_process'
import { closeSync, constants, existsSync, mkdirSync, openSync } from 'node:fs'
import { join } from 'node:path'
import { MAX_WAIT_MS, withFileLock } from '../src/stores/file-lock.js'
import { stillClock } from '../src/stores/still-clock.js'
import { fakeClockOn } from '../../../test-helpers/clock.js'
import { waitUntil } from '../../../test-helpers/wait.js'
import { as, hookFs } from './helpers/fs-hooks.js'
import { countLooks, ELSEWHERE, leftLock, leftovers, moreLooks, ownerIn } from './helpers/locks.js'

// mkfifo(1): coreutils on Linux, BSD's elsewhere; absent on Windows.
const noMkfifo = spawnSync('sh', ['-c', 'command -v mkfifo']).status === 0 ? false : 'needs mkfifo'

test('a lock whose owner file is a FIFO is read as having no owner, never waited on forever', { skip: noMkfifo }, async (t) => {
  const dir = t.testdir({})
  const path = join(dir, 'keys.json')
  const lock = `${path}.lock`
  const fifo = join(lock, 'owner')
  mkdirSync(lock)
  t.equal(spawnSync('mkfifo', [fifo]).status, 0, 'a FIFO planted as the owner file')
  // Lets a read blocked on the FIFO go (with a writer come and gone it reads end of file).
  t.teardown(() => { if (existsSync(fifo)) { try { closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK)) } catch {} } })
  const clock = fakeClockOn(t, stillClock)
  const looker = countLooks(t, lock, ['W']).W!
  let entered = false
  const waiter = as('W', () => withFileLock(path, async () => { entered = true }))
  await moreLooks(looker, 3, 'the waiter to look at the lock three times (not blocked reading its owner)')
  t.notOk(entered)
  clock.advance(10_001)
  await waiter
  t.ok(entered, 'an owner-less lock seen unchanged for 10 s: taken over')
  t.same(leftovers(dir), [], 'the FIFO went with it')
})

test('a takeover that keeps finding the lock changed waits and watches anew, and the waiter gives up at 2 minutes', async (t) => {
  const dir = t.testdir({})
  const path = join(dir, 'keys.json')
  const lock = `${path}.lock`
  leftLock(lock, ELSEWHERE, Date.now())
  const clock = fakeClockOn(t, stillClock)
  let looks = 0
  let takeovers = 0
  hookFs(t, ['stat', 'rename'], (fn, args, who) => {
    if (who !== 'W') return
    if (fn === 'rename' && args[0] === lock) takeovers++
    if (fn !== 'stat') return
    if (args[0] === lock) looks++
    // What the waiter moved aside is never what it judged (as if touched in between): it puts it back.
    if (String(args[0]).endsWith('.gone')) return { ino: -1, mtimeMs: 0 }
  })
  let settled = false
  const waiter = as('W', () => withFileLock(path, async () => {}))
  waiter.then(() => { settled = true }, () => { settled = true })
  // Counted as the stat starts: a second one means the first was judged.
  await waitUntil(() => looks >= 2, { what: 'the waiter to look at the lock' })
  clock.advance(10_001)
  await waitUntil(() => takeovers >= 1, { what: 'the waiter to try a takeover' })
  const seen = looks
  await waitUntil(() => looks >= seen + 3 || settled, { what: 'the waiter to look at the lock three more times' })
  t.equal(takeovers, 1, 'no second takeover: a lock that moved is watched for 10 s again')
  t.equal(ownerIn(lock).token, ELSEWHERE.token, 'the lock was put back')
  // Its holder seems to touch it now and then: no takeover ever checks out, so the deadline ends the wait.
  clock.advance(MAX_WAIT_MS)
  await t.rejects(waiter, { code: 'GATEHOUSE_AUTH_STORE_FILE', message: /keys\.json: could not lock .*keys\.json\.lock within 120 s \(held by process 4242 on elsewhere\)$/ })
  t.ok(takeovers <= 2, `${takeovers} takeovers in all`)
})
