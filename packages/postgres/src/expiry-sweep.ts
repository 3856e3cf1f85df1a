import type pg from 'pg'
import type { SqlNames } from './names.js'
import { wholeOption } from './option-ranges.js'
import { run, statement, type Statement } from './statement.js'

/** Options of the stores whose rows expire (sessions, lockout counters). */
export interface SweepOptions {
  /**
   * Milliseconds between sweeps of expired rows by this store (an unref'd
   * timer, stopped by `close()`); 0 = never (another instance, or a job
   * calling `sweep()`, does it). Expired rows count as absent either way.
   * Default: 60000.
   */
  sweepInterval?: number
  /** Rows deleted per statement of a sweep. Default: 1000. */
  sweepBatch?: number
}

export const sweepDefaults = Object.freeze({ sweepInterval: 60_000, sweepBatch: 1000 })

/** The keys of {@link SweepOptions}, for the stores' option checks. */
export const SWEEP_KEYS: readonly string[] = Object.freeze(['sweepInterval', 'sweepBatch'])

/** Checks the sweep options of `store`; throws `GATEHOUSE_POSTGRES_INVALID_OPTIONS` naming the option. */
export function resolveSweepOptions (options: SweepOptions, store: string): { interval: number, batch: number } {
  return {
    interval: wholeOption(store, 'sweepInterval', options.sweepInterval, sweepDefaults.sweepInterval),
    batch: wholeOption(store, 'sweepBatch', options.sweepBatch, sweepDefaults.sweepBatch)
  }
}

/**
 * Deletes at most `$2` rows of `table` that expired at `$1`, oldest first,
 * found by the expires_at index. Rows another call holds are skipped (SKIP
 * LOCKED): instances sweeping at once never wait for each other, and a
 * row renewed meanwhile is kept (the outer condition is checked again on
 * the row as it is when deleted).
 * D-POSTGRES-11.
 */
export function sweepStatement (names: SqlNames, table: string): Statement {
  const t = names.table(table)
  // key = any(array(…)), not key in (…): the planner then deletes by the
  // primary key, rather than joining with every expired row.
  return statement(names, `${table}.sweep`, `delete from ${t} where key = any(array(
    select key from ${t} where expires_at <= $1 order by expires_at limit $2 for update skip locked
  )) and expires_at <= $1`)
}

/**
 * Sweeps expired rows in batches: on a timer (unref'd: it never keeps a
 * process alive) and when asked. One sweep at a time per store.
 */
export class ExpirySweeper {
  readonly #pool: pg.Pool
  readonly #statement: Statement
  readonly #interval: number
  readonly #batch: number
  readonly #now: () => number
  #timer: NodeJS.Timeout | undefined
  #running: Promise<number> | undefined
  #stopped = false

  constructor (pool: pg.Pool, sweep: Statement, options: { interval: number, batch: number }, now: () => number) {
    this.#pool = pool
    this.#statement = sweep
    this.#interval = options.interval
    this.#batch = options.batch
    this.#now = now
  }

  /** Starts the timer (none when the interval is 0). */
  start (): void {
    if (this.#interval > 0 && !this.#stopped) this.#schedule()
  }

  #schedule (): void {
    this.#timer = setTimeout(() => {
      // A failed sweep (the database away) is tried again next time;
      // meanwhile expired rows only take room: reads skip them.
      this.sweep().catch(() => {}).finally(() => { if (!this.#stopped) this.#schedule() })
    }, this.#interval)
    this.#timer.unref()
  }

  /**
   * Deletes the rows expired now, `sweepBatch` per statement, until a
   * batch comes back short; resolves with how many. A sweep already
   * running is joined, not doubled.
   */
  async sweep (): Promise<number> {
    this.#running ??= this.#sweepAll().finally(() => { this.#running = undefined })
    return await this.#running
  }

  async #sweepAll (): Promise<number> {
    const now = Math.floor(this.#now())
    let total = 0
    for (;;) {
      const deleted = (await run(this.#pool, this.#statement, [now, this.#batch])).rowCount ?? 0
      total += deleted
      if (deleted < this.#batch || this.#stopped) return total
    }
  }

  /** Stops the timer and waits for a sweep in flight. */
  async stop (): Promise<void> {
    this.#stopped = true
    clearTimeout(this.#timer)
    await this.#running?.catch(() => {})
  }
}
