/**
 * Last-use times of API keys, kept in memory (one Map entry per key used
 * since the last write: real keys only, since only a verified key is
 * recorded) and written by `write` in one statement every `interval` ms,
 * never per request. A write that fails puts its times back for the next.
 * D-POSTGRES-ID6.
 */
export class LastUsed {
  #used = new Map<string, number>()
  readonly #interval: number
  readonly #write: (ids: string[], ats: string[]) => Promise<unknown>
  #timer: NodeJS.Timeout | undefined
  // Writes run one after the other (the timer's and close()'s).
  #queue: Promise<void> = Promise.resolve()

  constructor (interval: number, write: (ids: string[], ats: string[]) => Promise<unknown>) {
    this.#interval = interval
    this.#write = write
  }

  start (): void {
    this.#timer = setInterval(() => { this.flush().catch(() => {}) }, this.#interval)
    this.#timer.unref()
  }

  record (keyId: string, at: number): void {
    this.#used.set(keyId, at)
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
    const run = this.#queue.then(() => this.#flushOnce())
    this.#queue = run.catch(() => {})
    return run
  }

  async #flushOnce (): Promise<void> {
    if (this.#used.size === 0) return
    const used = this.#used
    this.#used = new Map()
    const ids = [...used.keys()]
    try {
      await this.#write(ids, ids.map((id) => new Date(used.get(id)!).toISOString()))
    } catch (err) {
      for (const [id, at] of used) if (!((this.#used.get(id) ?? -1) >= at)) this.#used.set(id, at)
      throw err
    }
  }

  /** Stops the timer and writes what is pending, once (a failure is dropped: there is no later write). */
  async stop (): Promise<void> {
    clearInterval(this.#timer)
    await this.flush().catch(() => {})
  }
}
