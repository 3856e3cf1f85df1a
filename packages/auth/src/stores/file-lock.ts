import { mkdir, rmdir, stat, utimes } from 'node:fs/promises'
import { setTimeout as sleep } from 'node:timers/promises'
import { GATEHOUSE_AUTH_STORE_FILE } from '../errors.js'

const STALE_MS = 10_000
const WAIT_MS = 5_000
const HEARTBEAT_MS = 2_000

/**
 * Runs `work` holding an exclusive lock on `path` across processes: the
 * lock is the directory `<path>.lock` (mkdir is atomic on every file
 * system). Its holder touches it every 2 s, so a lock untouched for 10 s
 * is taken to be left by a crashed process, however long the work (a
 * compaction of a large store) takes (D-AUTH-23). Not getting the lock within 5 s
 * throws `GATEHOUSE_AUTH_STORE_FILE`.
 */
export async function withFileLock<T> (path: string, work: () => Promise<T>): Promise<T> {
  const lock = `${path}.lock`
  const deadline = Date.now() + WAIT_MS
  for (;;) {
    try {
      await mkdir(lock)
      break
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
      const held = await stat(lock).then((s) => Date.now() - s.mtimeMs, () => 0)
      if (held > STALE_MS) {
        await rmdir(lock).catch(() => {})
        continue
      }
      if (Date.now() > deadline) throw new GATEHOUSE_AUTH_STORE_FILE(path, `could not lock ${lock} within ${WAIT_MS} ms`)
      await sleep(5 + Math.random() * 20)
    }
  }
  const now = (): Date => new Date()
  const heartbeat = setInterval(() => { utimes(lock, now(), now()).catch(() => {}) }, HEARTBEAT_MS)
  heartbeat.unref()
  try {
    return await work()
  } finally {
    clearInterval(heartbeat)
    await rmdir(lock).catch(() => {})
  }
}
