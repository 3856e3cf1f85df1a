// Writer processes (fixtures/writer.ts) started together against one store file.
import { execFile } from 'node:child_process'
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { waitUntil } from '../../../../test-helpers/wait.js'

const run = promisify(execFile)
const WRITER = fileURLToPath(new URL('../fixtures/writer.ts', import.meta.url))
export const writer = (...args: string[]) => run(process.execPath, ['--import', 'tsx', '--conditions=gatehouse-src', WRITER, ...args])

/**
 * Runs one writer per prefix against `path`, all held at a barrier until
 * each has started and opened its store, then released together; each
 * waits after its first write until all have written once, so the write
 * windows overlap by construction, not by luck of the scheduler. Resolves
 * with each writer's output lines and its write window.
 */
export async function together (kind: 'keys' | 'users' | 'churn', path: string, count: number, prefixes: string[]) {
  // Beside the store file: a second t.testdir() in one test is the same folder.
  const barrier = join(dirname(path), 'barrier')
  mkdirSync(barrier)
  writeFileSync(join(barrier, 'writers'), String(prefixes.length))
  const writers = prefixes.map((p) => writer(kind, path, String(count), p, barrier))
  let failed: unknown
  for (const w of writers) w.catch((err: unknown) => { failed ??= err })
  // Starting four tsx processes takes seconds idle, minutes on a busy machine: polled.
  await waitUntil(() => {
    if (failed !== undefined) throw failed
    return prefixes.every((p) => existsSync(join(barrier, `ready-${p}`)))
  }, { what: 'every writer to be ready' })
  writeFileSync(join(barrier, 'go'), '')
  const outputs = await Promise.all(writers)
  return outputs.map(({ stdout }) => {
    const lines = stdout.trim().split('\n')
    const [, start, end] = lines.pop()!.split(' ').map(Number) as [number, number, number]
    return { lines, start, end }
  })
}
