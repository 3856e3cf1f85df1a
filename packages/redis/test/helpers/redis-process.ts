import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { setTimeout as sleep } from 'node:timers/promises'
import { redisAnswers } from './redis.js'

/**
 * A throwaway redis-server on 127.0.0.1:`port`, no persistence, owned by the
 * test: it can be paused (SIGSTOP), resumed, killed and restarted on the
 * same port. `stop()` kills it for good; call it in t.teardown.
 */
export class RedisProcess {
  readonly port: number
  #child: ChildProcess | null = null

  constructor (port: number) {
    this.port = port
  }

  get url (): string {
    return `redis://127.0.0.1:${this.port}/0`
  }

  /** Starts the server and waits (at most 10 s) until it answers PING. */
  async start (): Promise<void> {
    if (this.#child !== null) throw new Error('already running')
    const child = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'], { stdio: 'ignore' })
    this.#child = child
    child.once('exit', () => { if (this.#child === child) this.#child = null })
    for (let i = 0; i < 100; i++) {
      if (await redisAnswers(this.port, 200)) return
      if (this.#child === null) throw new Error(`redis-server on port ${this.port} exited`)
      await sleep(100)
    }
    throw new Error(`redis-server on port ${this.port} did not answer within 10 s`)
  }

  /** Freezes the server (SIGSTOP): connections stay open, nothing is answered (D-REDIS-06). */
  pause (): void {
    this.#child?.kill('SIGSTOP')
  }

  /** Thaws a paused server (SIGCONT). */
  resume (): void {
    this.#child?.kill('SIGCONT')
  }

  /** Kills the server (SIGKILL; with no persistence its data is gone) and waits for it to exit. */
  async kill (): Promise<void> {
    const child = this.#child
    if (child === null || child.exitCode !== null || child.signalCode !== null) return
    const exited = once(child, 'exit')
    child.kill('SIGCONT')
    child.kill('SIGKILL')
    await exited
    this.#child = null
  }

  /** Kills the server if it runs; safe to call twice. */
  async stop (): Promise<void> {
    await this.kill()
  }
}
