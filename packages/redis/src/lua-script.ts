import { createHash } from 'node:crypto'
import type { Redis } from 'ioredis'
import { GATEHOUSE_REDIS_SCRIPT } from './errors.js'

/**
 * A Lua script run with EVALSHA (one round trip), sent once with EVAL when
 * the server does not know it yet (after a restart or SCRIPT FLUSH). Kept
 * apart from the client, so a client the caller owns gets no new commands.
 * D-REDIS-02: EVALSHA, not defineCommand.
 */
export class LuaScript {
  readonly #source: string
  readonly #sha: string
  readonly #keys: number

  constructor (source: string, keys: number) {
    this.#source = source
    this.#sha = createHash('sha1').update(source).digest('hex')
    this.#keys = keys
  }

  async run (client: Redis, keys: readonly string[], args: ReadonlyArray<string | number>): Promise<unknown> {
    if (keys.length !== this.#keys) throw new GATEHOUSE_REDIS_SCRIPT(`takes ${this.#keys} keys, given ${keys.length}`)
    try {
      return await client.evalsha(this.#sha, this.#keys, ...keys, ...args)
    } catch (err) {
      if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err
      return await client.eval(this.#source, this.#keys, ...keys, ...args)
    }
  }
}
