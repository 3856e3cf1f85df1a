import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { redisAnswers } from './redis.js'
import { waitUntil } from '../../../../test-helpers/wait.js'

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

  /** Starts the server and polls until it answers PING (up to the hang ceiling: the machine may be busy). */
  async start (): Promise<void> {
    if (this.#child !== null) throw new Error('already running')
    const child = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'], { stdio: 'ignore' })
    this.#child = child
    child.once('exit', () => { if (this.#child === child) this.#child = null })
    await waitUntil(async () => {
      if (this.#child === null) throw new Error(`redis-server on port ${this.port} exited`)
      return await redisAnswers(this.port)
    }, { everyMs: 100, what: `redis-server on port ${this.port} to answer PING` })
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
