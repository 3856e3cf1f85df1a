// Child processes in tests: wait for what they print, not for a fixed time.
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { HANG_CEILING_MS } from './wait.js'

export interface Output {
  /** Everything the child printed on stdout so far. */
  stdout: () => string
  /** Everything the child printed on stderr so far. */
  stderr: () => string
  /** Both, in the order they arrived. */
  all: () => string
}

/** Starts collecting a child's stdout and stderr (call right after spawn). */
export function collect (child: ChildProcess): Output {
  let out = ''
  let err = ''
  let all = ''
  child.stdout?.on('data', (c: Buffer) => { out += c.toString(); all += c.toString() })
  child.stderr?.on('data', (c: Buffer) => { err += c.toString(); all += c.toString() })
  return { stdout: () => out, stderr: () => err, all: () => all }
}

export interface OutputWait {
  /** Give up after this many ms (default HANG_CEILING_MS). */
  ceilingMs?: number
  /** What is waited for, for the error message. */
  what?: string
}

/**
 * Resolves with the first value `find` returns other than undefined, asked
 * again each time the child prints (on stdout or stderr; `text` is both).
 * Rejects with the output so far if the child exits first, or at the hang
 * ceiling.
 */
export async function waitForText<T> (child: ChildProcess, output: Output, find: (text: string) => T | undefined, options: OutputWait = {}): Promise<T> {
  const { ceilingMs = HANG_CEILING_MS, what = 'the expected output' } = options
  return await new Promise<T>((resolve, reject) => {
    const done = (): void => {
      clearTimeout(timer)
      child.stdout?.off('data', check)
      child.stderr?.off('data', check)
      child.off('exit', exited)
    }
    // Called after collect()'s own listeners (added first), so the text is current.
    const check = (): void => {
      const found = find(output.all())
      if (found !== undefined) { done(); resolve(found) }
    }
    const exited = (code: number | null, signal: string | null): void => {
      // The last chunk may arrive with the exit: look once more.
      const found = find(output.all())
      done()
      if (found !== undefined) resolve(found)
      else reject(new Error(`the child exited (${code ?? signal}) before printing ${what}:\n${output.all()}`))
    }
    const timer = setTimeout(() => {
      done()
      reject(new Error(`waited ${ceilingMs} ms for ${what} (a hang; GATEHOUSE_TEST_CEILING_MS sets the ceiling):\n${output.all()}`))
    }, ceilingMs)
    child.stdout?.on('data', check)
    child.stderr?.on('data', check)
    child.once('exit', exited)
    check()
  })
}

/** Resolves with the first match of `pattern` in what the child printed (a server's "serving at …" line). */
export async function waitForOutput (child: ChildProcess, output: Output, pattern: RegExp, options: OutputWait = {}): Promise<RegExpExecArray> {
  return await waitForText(child, output, (text) => pattern.exec(text) ?? undefined, { what: `output matching ${pattern}`, ...options })
}

/** Sends `signal` and resolves with the exit code; SIGKILLs the child (and rejects) at the hang ceiling. */
export async function stopChild (child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM', ceilingMs = HANG_CEILING_MS): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode
  const exit = once(child, 'exit') as Promise<[number | null, string | null]>
  child.kill(signal)
  let timer: NodeJS.Timeout | undefined
  const ceiling = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`the child did not exit within ${ceilingMs} ms of ${signal}`))
    }, ceilingMs)
  })
  try {
    const [code] = await Promise.race([exit, ceiling])
    return code
  } finally {
    clearTimeout(timer)
  }
}

/** What a finished child printed, and how it ended. */
export interface NodeRun { code: number | null, stdout: string, stderr: string }

/**
 * Runs node with `argv`, feeding `stdin`, until it exits; `env` is added to
 * this process's environment. For commands that end on their own (a CLI
 * call), not servers: those use `collect` and `waitForOutput`. A child still
 * running at the hang ceiling is killed and the call rejects with what it
 * printed, so a hung command fails its test instead of the whole run.
 */
export async function runNode (argv: string[], options: { stdin?: string, cwd?: string, env?: Record<string, string>, ceilingMs?: number } = {}): Promise<NodeRun> {
  const { ceilingMs = HANG_CEILING_MS } = options
  const child = spawn(process.execPath, argv, { cwd: options.cwd, env: { ...process.env, ...options.env } })
  const output = collect(child)
  child.stdin?.end(options.stdin ?? '')
  let timer: NodeJS.Timeout | undefined
  const ceiling = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`node ${argv.join(' ')} did not exit within ${ceilingMs} ms (a hang; GATEHOUSE_TEST_CEILING_MS sets the ceiling):\n${output.all()}`))
    }, ceilingMs)
  })
  try {
    const [code] = await Promise.race([once(child, 'close') as Promise<[number | null]>, ceiling])
    return { code, stdout: output.stdout(), stderr: output.stderr() }
  } finally {
    clearTimeout(timer)
  }
}
