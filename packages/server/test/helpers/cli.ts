import { PassThrough } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { runCli } from '@fastify-gatehouse/server'
import { runNode } from '../../../../test-helpers/child.js'

const FIXTURE = fileURLToPath(new URL('../fixtures/gatehouse.ts', import.meta.url))
export const BIN = fileURLToPath(new URL('../../bin/gatehouse.js', import.meta.url))

export interface Run { code: number | null, stdout: string, stderr: string }
export interface RunOptions {
  stdin?: string
  cwd?: string
  env?: Record<string, string>
  /** In this process: `env` alone, without this process's environment (no stray GATEHOUSE_* from the shell). */
  cleanEnv?: boolean
  bin?: boolean
  process?: boolean
}

/**
 * Runs the `gatehouse` command line. Most runs go through runCli in this
 * process with buffers for its streams (a tsx child costs ~1.5 s to start);
 * `process: true` runs the CLI as a child on the sources, `bin: true` runs
 * the built bin, where being another process is the point.
 */
export async function gatehouse (args: string[], options: RunOptions = {}): Promise<Run> {
  if (options.bin === true || options.process === true) return spawnCli(args, options)
  let stdout = ''
  let stderr = ''
  const stdin = new PassThrough()
  stdin.end(options.stdin ?? '')
  const code = await runCli(args, {
    stdin,
    stdout: new PassThrough().on('data', (c: Buffer) => { stdout += c }),
    stderr: new PassThrough().on('data', (c: Buffer) => { stderr += c }),
    env: options.cleanEnv === true ? { ...options.env } : { ...process.env, ...options.env },
    cwd: options.cwd ?? process.cwd()
  })
  return { code, stdout, stderr }
}

function spawnCli (args: string[], options: RunOptions): Promise<Run> {
  const argv = options.bin === true ? [BIN, ...args] : ['--import', 'tsx', '--conditions=gatehouse-src', FIXTURE, ...args]
  return runNode(argv, options)
}
