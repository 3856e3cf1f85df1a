// At most this many keys per statement, and a write starts before its
// interval once this many are pending: memory stays bounded, and one
// statement stays well inside the statement timeout (100 000 keys in one
// took 2.35 s in the benchmark, D-BENCH-06).
export const LAST_USED_BATCH = 10_000
// While writes fail (the database away), at most this many times are kept;
// a key first used meanwhile is not recorded until a write succeeds.
export const LAST_USED_MAX_PENDING = 100_000
// An early write is tried at most this often (ms), so a database that is
// away is not asked on every request.
const EARLY_EVERY_MS = 1000

/**
 * Last-use times of API keys, kept in memory (one Map entry per key used
 * since the last write: real keys only, since only a verified key is
 * recorded) and written by `write` in one statement every `interval` ms,
 * never per request. A write that fails puts its times back for the next.
 * D-POSTGRES-18.
 */
export class LastUsed {
  #used = new Map<string, number>()
  readonly #interval: number
  readonly #write: (ids: string[], ats: string[]) => Promise<unknown>
  #timer: NodeJS.Timeout | undefined
  // Writes run one after the other (the timer's and close()'s).
  #queue: Promise<void> = Promise.resolve()
  #earlyAt = -Infinity
  #waiting: Promise<void> | null = null

  constructor (interval: number, write: (ids: string[], ats: string[]) => Promise<unknown>) {
    this.#interval = interval
    this.#write = write
  }

  start (): void {
    this.#timer = setInterval(() => { this.flush().catch(() => {}) }, this.#interval)
    this.#timer.unref()
  }

  record (keyId: string, at: number): void {
    if (this.#used.size >= LAST_USED_MAX_PENDING && !this.#used.has(keyId)) return
    this.#used.set(keyId, at)
    if (this.#used.size >= LAST_USED_BATCH && at - this.#earlyAt >= EARLY_EVERY_MS) {
      this.#earlyAt = at
      this.flush().catch(() => {})
    }
  }

  /** The time recorded for `keyId` and not written yet. */
  pending (keyId: string): number | undefined {
    return this.#used.get(keyId)
  }

  forget (keyId: string): void {
    this.#used.delete(keyId)
  }

  /** Writes what is pending (after any write under way); rejects when the statement fails. */
  flush (): Promise<void> {
    // A write already waiting will take whatever is pending when it starts: callers share it.
    if (this.#waiting !== null) return this.#waiting
    const run = this.#queue.then(() => {
      this.#waiting = null
      return this.#flushOnce()
    })
    this.#waiting = run
    this.#queue = run.catch(() => {})
    return run
  }

  async #flushOnce (): Promise<void> {
    if (this.#used.size === 0) return
    const used = this.#used
    this.#used = new Map()
    const ids = [...used.keys()]
    for (let from = 0; from < ids.length; from += LAST_USED_BATCH) {
      const batch = ids.slice(from, from + LAST_USED_BATCH)
      try {
        await this.#write(batch, batch.map((id) => new Date(used.get(id)!).toISOString()))
      } catch (err) {
        for (const id of ids.slice(from)) {
          const at = used.get(id)!
          const now = this.#used.get(id)
          // Put back within the bound: times recorded meanwhile count too.
          if (now === undefined ? this.#used.size < LAST_USED_MAX_PENDING : now < at) this.#used.set(id, at)
        }
        throw err
      }
    }
  }

  /** Stops the timer and writes what is pending, once (a failure is dropped: there is no later write). */
  async stop (): Promise<void> {
    clearInterval(this.#timer)
    await this.flush().catch(() => {})
  }
}
