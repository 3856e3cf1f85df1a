import { randomBytes } from 'node:crypto'
import { constants } from 'node:fs'
import { mkdir, open, rename, rm, rmdir, stat, utimes, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { GATEHOUSE_AUTH_STORE_FILE } from '../errors.js'
import { knownAlive, newOwner, parseOwner, type LockOwner } from './lock-owner.js'
import { Stillness, stillClock } from './still-clock.js'

/**
 * A lock (or a store file's unfinished last line) seen unchanged this long
 * (ms), on the watcher's own clock, is taken to be left by a holder that
 * stopped. D-AUTH-39.
 */
export const STALE_MS = 10_000
const HEARTBEAT_MS = 2_000
/** The longest a change waits for a lock, however many holders come before it (ms). D-AUTH-36. */
export const MAX_WAIT_MS = 120_000
const OWNER_FILE = 'owner'
// Never blocks on a planted FIFO or device, nor follows a link out of the lock (absent flags: Windows).
const READ_OWNER = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0)

// The tokens of the locks this process holds now.
const holding = new Set<string>()

/** What the holder of a lock can ask of it. */
export interface FileLease {
  /**
   * Throws `GATEHOUSE_AUTH_STORE_FILE` unless this process still holds the
   * lock: called right before each write, so that a holder whose lock was
   * taken over (it stalled past STALE_MS on another machine) writes nothing.
   * D-AUTH-33.
   */
  check: () => Promise<void>
}

/** A lock directory as seen at one moment. */
interface Seen {
  readonly ino: number
  readonly mtimeMs: number
  readonly owner: LockOwner | undefined
}

const codeOf = (err: unknown): unknown => (err as NodeJS.ErrnoException).code

/**
 * Runs `work` holding an exclusive lock on `path` across processes: the
 * directory `<path>.lock` (mkdir is atomic), whose file `owner` names the
 * holder. The holder is the process whose token is in that file; it
 * touches the directory every 2 s and checks it still holds the lock
 * before each write (`lease.check()`).
 *
 * A lock this process has watched for 10 s, on its own monotonic clock,
 * without seeing it change (its directory, mtime or owner) is taken over,
 * unless its holder is known to be running on this machine (a busy
 * machine, not a crash). The mtime's value is never compared with this
 * process's clock: another host's clock may be off either way. A takeover
 * renames the lock aside (one process wins a rename), and removes it only
 * if it is still the lock it judged stale; anything else is put back.
 *
 * A waiter waits while the lock changes hands or its holder keeps touching
 * it; it gives up with `GATEHOUSE_AUTH_STORE_FILE` when a holder known to
 * run has not touched it for 10 s, or after 2 minutes in all, whatever
 * happens meanwhile.
 * D-AUTH-09, D-AUTH-23, D-AUTH-32 to D-AUTH-36, D-AUTH-39.
 */
export async function withFileLock<T> (path: string, work: (lease: FileLease) => Promise<T>): Promise<T> {
  const lock = `${path}.lock`
  const owner = newOwner()
  try {
    await acquire(path, lock, owner)
  } catch (err) {
    throw codeOf(err) === 'GATEHOUSE_AUTH_STORE_FILE' ? err : new GATEHOUSE_AUTH_STORE_FILE(path, `lock ${lock}: ${(err as Error).message}`)
  }
  const touch = (): void => {
    const now = new Date()
    utimes(lock, now, now).catch(() => {})
  }
  holding.add(owner.token)
  const heartbeat = setInterval(touch, HEARTBEAT_MS)
  heartbeat.unref()
  const lease: FileLease = {
    check: async () => {
      const holder = await readOwner(lock)
      if (holder?.token !== owner.token) {
        throw new GATEHOUSE_AUTH_STORE_FILE(path, `lost its lock ${lock} (now ${holder === undefined ? 'free' : `held by ${describe(holder)}`}): taken over after this process left it untouched for ${STALE_MS / 1000} s, or removed by hand; the change was not written`)
      }
    }
  }
  try {
    return await work(lease)
  } finally {
    clearInterval(heartbeat)
    await release(lock, owner).catch(() => {})
    holding.delete(owner.token)
  }
}

async function acquire (path: string, lock: string, owner: LockOwner): Promise<void> {
  const started = stillClock.now()
  const still = new Stillness<Seen>((a, b) => a.ino === b.ino && a.mtimeMs === b.mtimeMs && a.owner?.token === b.owner?.token)
  let last: Seen | undefined
  for (;;) {
    if (await create(lock, owner)) return
    const found = await inspect(lock)
    last = found ?? last
    // Released, or removed by this takeover: tried again at once, but never past the deadline.
    let again = found === undefined
    if (found !== undefined) {
      const quiet = still.look(found)
      if (quiet > STALE_MS) {
        if (await knownAlive(found.owner, holding)) {
          throw new GATEHOUSE_AUTH_STORE_FILE(path, `could not lock ${lock}: its holder, ${describe(found.owner)}, is running but has not touched it for ${Math.round(quiet / 1000)} s (stopped, or its event loop blocked?)`)
        }
        again = await takeOver(lock, found)
        // Not removed: it was taken or touched since it was judged, a change; watched anew.
        if (!again) still.restart()
      }
    }
    if (stillClock.now() - started > MAX_WAIT_MS) {
      throw new GATEHOUSE_AUTH_STORE_FILE(path, `could not lock ${lock} within ${MAX_WAIT_MS / 1000} s (held by ${describe(last?.owner)})`)
    }
    if (!again) await sleep(5 + Math.random() * 20)
  }
}

/** Makes the lock directory and writes this process's owner file in it: whether the lock is now this process's. */
async function create (lock: string, owner: LockOwner): Promise<boolean> {
  try {
    await mkdir(lock, { mode: 0o700 })
  } catch (err) {
    if (codeOf(err) === 'EEXIST') return false
    throw err
  }
  try {
    // 'wx': if a lock put back by a takeover (putBack) replaced this still
    // empty directory, its owner file is there and this one is refused;
    // ENOENT: a takeover moved this directory aside, and removes it.
    await writeFile(join(lock, OWNER_FILE), JSON.stringify(owner), { flag: 'wx', mode: 0o600 })
    return true
  } catch (err) {
    if (codeOf(err) === 'EEXIST' || codeOf(err) === 'ENOENT') return false
    // Only removes an empty directory: this one, or another being created (whose creator then tries again).
    await rmdir(lock).catch(() => {})
    throw err
  }
}

/** The directory `dir` and its owner; undefined when there is none. */
async function inspect (dir: string): Promise<Seen | undefined> {
  let info
  try {
    info = await stat(dir)
  } catch (err) {
    if (codeOf(err) === 'ENOENT') return undefined
    throw err
  }
  return { ino: info.ino, mtimeMs: info.mtimeMs, owner: await readOwner(dir) }
}

/**
 * The owner of the lock `dir`; undefined when there is no lock, or it has
 * no owner file yet (or not one of ours: anything but a regular file, such
 * as a FIFO that would block a read forever).
 */
async function readOwner (dir: string): Promise<LockOwner | undefined> {
  let file
  try {
    file = await open(join(dir, OWNER_FILE), READ_OWNER)
  } catch {
    return undefined
  }
  try {
    if (!(await file.stat()).isFile()) return undefined
    // An owner file is about 200 bytes; a bigger one is not ours.
    const buffer = Buffer.alloc(4096)
    const { bytesRead } = await file.read(buffer, 0, buffer.length, 0)
    return parseOwner(buffer.toString('utf8', 0, bytesRead))
  } catch {
    return undefined
  } finally {
    await file.close().catch(() => {})
  }
}

/** A new name beside `lock` to move it to (never a lock's name, nor a temp file's). */
const aside = (lock: string): string => `${lock}.${randomBytes(8).toString('hex')}.gone`

/**
 * Removes the lock `judged` stale, if it still is: renames whatever is at
 * `lock` aside (of processes taking over the same lock, one wins the
 * rename), then compares it with what was judged (inode, last touch,
 * owner). A lock taken or touched since is put back. Whether the lock
 * judged stale is gone (removed by this process or another).
 * D-AUTH-32.
 */
async function takeOver (lock: string, judged: Seen): Promise<boolean> {
  const claimed = aside(lock)
  try {
    await rename(lock, claimed)
  } catch (err) {
    // Taken over (or released) by another process first: the lock is free or new.
    if (codeOf(err) === 'ENOENT') return true
    throw err
  }
  const got = await inspect(claimed)
  if (got !== undefined && got.ino === judged.ino && got.mtimeMs === judged.mtimeMs && got.owner?.token === judged.owner?.token) {
    await rm(claimed, { recursive: true, force: true })
    return true
  }
  await putBack(claimed, lock, got)
  return false
}

/**
 * Returns a lock moved aside by mistake to its place. A lock without an
 * owner file is one being created: removed instead (its creator's owner
 * write fails, and it tries again). When another lock is in place
 * already, the one moved aside is removed: its holder's next
 * `lease.check()` fails, so it writes nothing.
 */
async function putBack (claimed: string, lock: string, got: Seen | undefined): Promise<void> {
  if (got?.owner !== undefined) {
    try {
      // Over an empty directory (a lock being created) too: that creator's owner write then fails.
      await rename(claimed, lock)
      return
    } catch {}
  }
  await rm(claimed, { recursive: true, force: true })
}

/** Removes the lock if it is still this process's (after a takeover it is another's, and is left alone). D-AUTH-32. */
async function release (lock: string, owner: LockOwner): Promise<void> {
  if ((await readOwner(lock))?.token !== owner.token) return
  const claimed = aside(lock)
  await rename(lock, claimed)
  const got = await inspect(claimed)
  if (got?.owner?.token === owner.token) await rm(claimed, { recursive: true, force: true })
  else await putBack(claimed, lock, got)
}

function describe (owner: LockOwner | undefined): string {
  return owner === undefined ? 'an unknown process' : `process ${owner.pid} on ${owner.host === '' ? 'an unnamed host' : owner.host}`
}
