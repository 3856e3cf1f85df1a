import { boundedPolicy, CLAIM_TTL_MS, MAX_LOCK_SECONDS, secondsUntil, type LockoutPolicy, type LockoutStore } from '@fastify-gatehouse/auth'
import { ExpirySweeper, resolveSweepOptions, SWEEP_KEYS, sweepStatement, type SweepOptions } from './expiry-sweep.js'
import type { PostgresConnection, PostgresStoreOptions } from './options.js'
import { PostgresStore, type ConnectOptions } from './postgres-store.js'
import { asText, run, statement, type Statement } from './statement.js'

/** Options of {@link PostgresLockoutStore}: a connection, the shared options and the sweep. */
export type PostgresLockoutStoreOptions = PostgresConnection & PostgresStoreOptions & ConnectOptions & SweepOptions

type Step = 'claim' | 'failure' | 'refund'

/**
 * Failed-login counters in PostgreSQL (`<schema>.<prefix>lockout`), shared
 * by every server instance that uses the same database, schema and prefix
 * (give it as `serverApp.login.store`). `claim`, `recordFailure` and
 * `refund` are one statement each: a call of the migration's
 * `lockout_step` function, which holds the key's row lock while it applies
 * the rules of `afterClaim` / `afterFailure` / `afterRefund`, so concurrent
 * attempts on every instance are all counted (D-LOCKOUT-03). `lockedFor`
 * is one indexed read, `reset` one delete. Times are the caller's `now`. A
 * key that holds nothing is deleted; leftovers (state no longer worth
 * remembering) are swept in batches. A database that is away rejects with
 * `GATEHOUSE_POSTGRES_UNAVAILABLE` (503).
 */
export class PostgresLockoutStore extends PostgresStore implements LockoutStore {
  readonly #step: Statement
  readonly #lockedFor: Statement
  readonly #reset: Statement
  readonly #sweeper: ExpirySweeper

  /**
   * Opens the store and checks the schema: rejects with
   * `GATEHOUSE_POSTGRES_INVALID_OPTIONS` for bad options,
   * `GATEHOUSE_POSTGRES_CONNECT` when PostgreSQL does not answer within
   * `connectTimeout`, and `…_SCHEMA_BEHIND` / `…_SCHEMA_AHEAD` for a schema
   * of another version (unless `migrate: true`). Then starts the sweep timer.
   */
  static async connect (options: PostgresLockoutStoreOptions): Promise<PostgresLockoutStore> {
    const store = await PostgresStore.connected(new PostgresLockoutStore(options), options)
    store.#sweeper.start()
    return store
  }

  private constructor (options: PostgresLockoutStoreOptions) {
    super(options, 'PostgresLockoutStore', SWEEP_KEYS)
    const t = this.names.table('lockout')
    this.#step = statement(this.names, 'lockout.step', `select ${this.names.table('lockout_step')}($1, $2, $3, $4, $5, $6, $7, $8) as answer`)
    this.#lockedFor = statement(this.names, 'lockout.locked-until', `select locked_until from ${t} where key = $1`)
    this.#reset = statement(this.names, 'lockout.reset', `delete from ${t} where key = $1`)
    // Swept by the instance's own clock: rows expire a minute or more after
    // they stop mattering, so clocks a little apart change nothing.
    this.#sweeper = new ExpirySweeper(this.pool, sweepStatement(this.names, 'lockout'), resolveSweepOptions(options, 'PostgresLockoutStore'), Date.now)
  }

  async lockedFor (key: string, now: number): Promise<number> {
    const { rows } = await run<{ locked_until: string }>(this.pool, this.#lockedFor, [asText(key)])
    return secondsUntil(Number(rows[0]?.locked_until ?? 0), now)
  }

  async claim (key: string, policy: LockoutPolicy, now: number): Promise<number> {
    return await this.#run('claim', key, policy, now)
  }

  async recordFailure (key: string, policy: LockoutPolicy, now: number): Promise<number> {
    return await this.#run('failure', key, policy, now)
  }

  async refund (key: string, policy: LockoutPolicy, now: number): Promise<void> {
    await this.#run('refund', key, policy, now)
  }

  async reset (key: string): Promise<void> {
    await run(this.pool, this.#reset, [asText(key)])
  }

  async #run (step: Step, key: string, policy: LockoutPolicy, now: number): Promise<number> {
    // Held to LOCKOUT_LIMITS: the step's integer and bigint arguments hold those (D-LOCKOUT-07).
    const { maxAttempts, backoff, resetAfter } = boundedPolicy(policy)
    const { rows } = await run<{ answer: number }>(this.pool, this.#step,
      [step, asText(key), Math.floor(now), maxAttempts, backoff, resetAfter, MAX_LOCK_SECONDS, CLAIM_TTL_MS])
    return rows[0]!.answer
  }

  /**
   * Deletes the counters whose state no longer matters (expired by this
   * instance's clock), `sweepBatch` rows per statement; resolves with how
   * many. The timer calls it every `sweepInterval`.
   */
  async sweep (): Promise<number> {
    return await this.#sweeper.sweep()
  }

  /** Stops the sweep timer (waiting for a sweep in flight), then ends the pool the store opened. */
  override async close (): Promise<void> {
    await this.#sweeper.stop()
    await super.close()
  }
}
