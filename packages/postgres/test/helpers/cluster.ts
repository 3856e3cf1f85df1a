// A PostgreSQL of a test file's own, for fault tests: the shared one on
// 5432 is never stopped, frozen or restarted (other tests and agents use it).
// D-TOOLING-20.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { chownSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { needPostgresServer, postgresAnswers, postgresBin } from './postgres.js'
import { freePort } from '../../../../test-helpers/port.js'
import { HANG_CEILING_MS, waitUntil } from '../../../../test-helpers/wait.js'

/** How a cluster is stopped: `fast` (SIGINT: sessions ended, open transactions rolled back) or `immediate` (SIGQUIT: no shutdown checkpoint, like a crash). */
export type StopMode = 'fast' | 'immediate'

const STOP_SIGNAL: Record<StopMode, NodeJS.Signals> = { fast: 'SIGINT', immediate: 'SIGQUIT' }

// Settings for a throwaway cluster: no durability (fsync, full pages), TCP
// on loopback only, dynamic shared memory in files under the data folder
// (removed with it) rather than /dev/shm, few connections, a small cache.
const SETTINGS = [
  'listen_addresses=127.0.0.1',
  'fsync=off',
  'full_page_writes=off',
  'dynamic_shared_memory_type=mmap',
  'shared_buffers=16MB',
  'max_connections=40',
  'autovacuum=off',
  'logging_collector=off'
]

/**
 * Who runs the server: initdb and postgres refuse root, so a root test
 * process runs them as the `postgres` OS user (Debian's package makes it);
 * anyone else runs them as themselves.
 */
function serverUser (): { uid: number, gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined
  const id = (flag: string): number => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim())
  const user = { uid: id('-u'), gid: id('-g') }
  if (!Number.isInteger(user.uid) || user.uid <= 0 || !Number.isInteger(user.gid)) {
    throw new Error('running as root, the test cluster needs a `postgres` OS user to run initdb and postgres as (install PostgreSQL from Debian, or run the tests as another user)')
  }
  return user
}

/** The ids of `pid`'s child processes, from /proc (postgres makes each child a session leader, so no process group covers them). */
function childrenOf (pid: number): number[] {
  const children: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    let stat: string
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
    } catch {
      continue // it ended meanwhile
    }
    // pid (comm) state ppid …: comm may hold spaces and parentheses.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
    if (ppid === pid) children.push(Number(entry))
  }
  return children
}

function signal (pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name)
  } catch {
    // it ended meanwhile
  }
}

// Ends a cluster whose test process ended without destroy() (killed by
// tap's timeout, a signal, a crash): a shell waiting for its stdin, a pipe
// from the test process, to close; then it thaws and stops (immediate) the
// postmaster in postmaster.pid, waits for it, and removes the folder. It
// runs as the test process's user, who can signal the server and remove
// the folder. After destroy() it finds nothing left and exits.
const WATCHDOG = `
read _
pid=$(head -n 1 "$1/data/postmaster.pid" 2>/dev/null)
if [ -n "$pid" ]; then
  kill -CONT "$pid" 2>/dev/null; pkill -CONT -P "$pid" 2>/dev/null
  kill -QUIT "$pid" 2>/dev/null
  n=0; while kill -0 "$pid" 2>/dev/null && [ $n -lt 600 ]; do sleep 0.1; n=$((n + 1)); done
  kill -KILL "$pid" 2>/dev/null
fi
rm -rf "$1"
`

/**
 * One PostgreSQL cluster in a temporary folder (initdb with trust auth for
 * the `postgres` role), its postmaster a child of this process on a free
 * port of 127.0.0.1 and its Unix socket in that folder. It can be stopped
 * (fast or immediate), frozen (SIGSTOP on the postmaster and every backend:
 * connections stay open, nothing answers) and thawed, and started again on
 * the same port and data. `destroy()` (in t.teardown) ends it and removes
 * the folder, whatever state it is in; if the test process ends without
 * it (killed, crashed), a watchdog process does the same.
 */
export class TestCluster {
  readonly dir: string
  #port = 0
  #child: ChildProcess | null = null
  #frozen: number[] = []
  #log = ''
  readonly #user = serverUser()

  readonly #watchdog: ChildProcess
  readonly #settings: readonly string[]

  private constructor (dir: string, settings: readonly string[]) {
    this.dir = dir
    // A test's own settings replace the defaults of the same name.
    const named = new Set(settings.map((s) => s.split('=')[0]))
    this.#settings = [...SETTINGS.filter((s) => !named.has(s.split('=')[0])), ...settings]
    this.#watchdog = spawn('sh', ['-c', WATCHDOG, 'watchdog', dir], { stdio: ['pipe', 'ignore', 'ignore'] })
    // It must not keep the test process alive: it is there for when that ends.
    this.#watchdog.unref()
    this.#watchdog.stdin?.on('error', () => {}) // it exited first
    ;(this.#watchdog.stdin as unknown as { unref: () => void }).unref()
  }

  /** Makes and starts a cluster (initdb, then {@link start}); `settings` (`name=value`) replace or add to the defaults. */
  static async create (settings: readonly string[] = []): Promise<TestCluster> {
    const cluster = new TestCluster(mkdtempSync(join(tmpdir(), 'gatehouse-pg-')), settings)
    try {
      if (cluster.#user !== undefined) chownSync(cluster.dir, cluster.#user.uid, cluster.#user.gid)
      await cluster.#initdb()
      await cluster.start()
    } catch (err) {
      await cluster.destroy()
      throw err
    }
    return cluster
  }

  /** The port it listens on (the same across restarts). */
  get port (): number {
    return this.#port
  }

  /** The postmaster's process id while it runs. */
  get pid (): number | undefined {
    return this.#child?.pid
  }

  /** The postmaster and every process it started, while it runs. */
  get processes (): number[] {
    const pid = this.#child?.pid
    return pid === undefined ? [] : [pid, ...childrenOf(pid)]
  }

  /** Whether the postmaster runs (frozen or not). */
  get running (): boolean {
    return this.#child !== null
  }

  /** A URL for `database` as the trusted `postgres` role. */
  url (database = 'postgres'): string {
    return `postgres://postgres@127.0.0.1:${this.#port}/${database}`
  }

  /** What the server printed lately (for failure messages). */
  get log (): string {
    return this.#log
  }

  async #initdb (): Promise<void> {
    const initdb = postgresBin('initdb')
    if (initdb === undefined) throw new Error('initdb is not installed')
    const child = spawn(initdb, ['-D', join(this.dir, 'data'), '-U', 'postgres', '--auth=trust', '--no-sync', '--encoding=UTF8', '--locale=C', '--no-instructions'], {
      cwd: this.dir, stdio: ['ignore', 'pipe', 'pipe'], ...this.#user
    })
    let output = ''
    child.stdout.on('data', (c: Buffer) => { output += c.toString() })
    child.stderr.on('data', (c: Buffer) => { output += c.toString() })
    const [code] = await once(child, 'close') as [number | null]
    if (code !== 0) throw new Error(`initdb failed (${code}):\n${output}`)
  }

  /**
   * Starts the postmaster and polls until it accepts a connection (up to
   * the hang ceiling: a loaded machine can take long). The first start
   * picks a free port, and another if that one was taken between the check
   * and the bind (up to five tries); later starts reuse it.
   */
  async start (): Promise<void> {
    if (this.#child !== null) throw new Error('the test cluster is already running')
    const first = this.#port === 0
    for (let attempt = 1; ; attempt++) {
      if (first) this.#port = await freePort()
      try {
        return await this.#startOnce()
      } catch (err) {
        const taken = /could not bind|Address already in use|could not create any TCP\/IP sockets/i.test(this.#log)
        if (!first || !taken || attempt === 5) throw err
      }
    }
  }

  async #startOnce (): Promise<void> {
    const postgres = postgresBin('postgres')
    if (postgres === undefined) throw new Error('postgres is not installed')
    this.#log = ''
    const args = ['-D', join(this.dir, 'data'), '-p', String(this.#port), '-k', this.dir, ...this.#settings.flatMap((s) => ['-c', s])]
    const child = spawn(postgres, args, { cwd: this.dir, stdio: ['ignore', 'ignore', 'pipe'], ...this.#user })
    this.#child = child
    child.stderr?.on('data', (c: Buffer) => { this.#log = (this.#log + c.toString()).slice(-16_384) })
    child.once('exit', () => { if (this.#child === child) this.#child = null })
    await waitUntil(async () => {
      if (this.#child !== child) throw new Error(`postgres on port ${this.#port} exited while starting:\n${this.#log}`)
      return await postgresAnswers(this.url(), HANG_CEILING_MS)
    }, { everyMs: 50, what: `the test cluster on port ${this.#port} to accept connections` })
  }

  /**
   * Stops the postmaster with `mode` (thawing it first) and waits until it
   * exits, which it does after its backends have: no process is left.
   */
  async stop (mode: StopMode = 'fast'): Promise<void> {
    const child = this.#child
    if (child === null) return
    const exited = once(child, 'exit')
    this.thaw()
    signal(child.pid!, STOP_SIGNAL[mode])
    let timer: NodeJS.Timeout | undefined
    const ceiling = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => {
        for (const pid of [child.pid!, ...childrenOf(child.pid!)]) signal(pid, 'SIGKILL')
        reject(new Error(`the test cluster did not stop within ${HANG_CEILING_MS} ms of ${STOP_SIGNAL[mode]} (killed):\n${this.#log}`))
      }, HANG_CEILING_MS)
    })
    try {
      await Promise.race([exited, ceiling])
    } finally {
      clearTimeout(timer)
    }
  }

  /** Stops (`mode`) and starts again on the same port and data. */
  async restart (mode: StopMode = 'fast'): Promise<void> {
    await this.stop(mode)
    await this.start()
  }

  /**
   * Freezes the server: SIGSTOP to the postmaster (new connections are
   * accepted by the kernel, then never answered) and to every process it
   * started (open connections get no reply). Until {@link thaw}.
   */
  freeze (): void {
    const pid = this.#child?.pid
    if (pid === undefined || this.#frozen.length > 0) return
    // The postmaster first, so no backend is started while its siblings stop.
    signal(pid, 'SIGSTOP')
    this.#frozen = [pid, ...childrenOf(pid)]
    for (const child of this.#frozen.slice(1)) signal(child, 'SIGSTOP')
  }

  /** Thaws a frozen server (SIGCONT to every process {@link freeze} stopped). */
  thaw (): void {
    for (const pid of this.#frozen) signal(pid, 'SIGCONT')
    this.#frozen = []
  }

  /** Stops the cluster (immediate) if it runs and removes its folder; safe to call twice. */
  async destroy (): Promise<void> {
    try {
      await this.stop('immediate')
    } finally {
      rmSync(this.dir, { recursive: true, force: true })
      const watchdog = this.#watchdog
      if (watchdog.exitCode === null && watchdog.signalCode === null) {
        const exited = once(watchdog, 'exit')
        watchdog.ref() // or the process could end while waiting for it
        watchdog.stdin?.end()
        await exited
      }
    }
  }
}

/**
 * Test options for tests that start a cluster of their own: as
 * {@link needPostgresServer}, on Linux, and when running as root, a
 * `postgres` OS user to run it as (a skip, or an error under
 * GATEHOUSE_REQUIRE_POSTGRES=1).
 */
export async function needTestCluster (): Promise<{ skip?: string }> {
  const server = await needPostgresServer()
  if (server.skip !== undefined) return server
  try {
    // Freezing finds the postmaster's children in /proc.
    if (process.platform !== 'linux') throw new Error(`the test cluster runs on Linux only, not ${process.platform}`)
    serverUser()
    return {}
  } catch (err) {
    if (process.env.GATEHOUSE_REQUIRE_POSTGRES === '1') throw err
    return { skip: (err as Error).message }
  }
}

/** A started {@link TestCluster} (with `settings`, see {@link TestCluster.create}) that `t` destroys when it ends (passed or not). */
export async function testCluster (t: { teardown: (fn: () => Promise<void>) => void }, settings: readonly string[] = []): Promise<TestCluster> {
  const cluster = await TestCluster.create(settings)
  t.teardown(() => cluster.destroy())
  return cluster
}
