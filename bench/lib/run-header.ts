// The line under a store benchmark's table heading: the command that
// reproduces it, and what it ran on (growth.ts, basic-growth.ts,
// session-list.ts, postgres.ts).
import { execFileSync } from 'node:child_process'
import { cpus, loadavg } from 'node:os'

/** The short hash of the commit checked out, or `unknown` outside git. */
export function commitOf (): string {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim()
  } catch {
    return 'unknown'
  }
}

/** When a run started, and the machine's load then. */
export interface RunStart {
  readonly at: number
  readonly load: number
}

export const runStart = (): RunStart => ({ at: Date.now(), load: loadavg()[0]! })

/**
 * `Command: … · date · CPUs · Node · servers · load · minutes · processes.`:
 * `args` as given to `script` (empty for none), `servers` what follows the
 * Node version as written (` · PostgreSQL …`, or empty), `processes` how the
 * workers ran (`unpinned`, or where they were pinned).
 */
export function commandLine (script: string, args: string, start: RunStart, servers: string, processes: string): string {
  return `Command: \`pnpm --filter @fastify-gatehouse/bench exec node --import tsx ${script}${args === '' ? '' : ` ${args}`}\` (after \`pnpm build\`) · ${new Date().toISOString().slice(0, 10)} · ${cpus().length} × ${cpus()[0]?.model.trim() ?? 'cpu'} · Node ${process.version}${servers} · load average ${start.load.toFixed(2)} at the start, ${loadavg()[0]!.toFixed(2)} at the end, ${((Date.now() - start.at) / 60_000).toFixed(1)} min · ${processes}.`
}
