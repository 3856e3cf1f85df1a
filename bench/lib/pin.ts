import { execFileSync } from 'node:child_process'
import { cpus } from 'node:os'

/**
 * Pins every thread of `pid` (and the threads it starts later, which
 * inherit the mask) to one CPU with taskset. The server and the load
 * generator on separate cores stop stealing each other's time slices, which
 * is most of the run-to-run noise of CPU-per-request on a 2-core machine.
 * Returns false (and pins nothing) where taskset or a second core is missing.
 * D-BENCH-02.
 */
export function pinToCpu (pid: number, cpu: number): boolean {
  if (cpus().length < 2) return false
  try {
    execFileSync('taskset', ['-a', '-p', '-c', String(cpu), String(pid)], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}
