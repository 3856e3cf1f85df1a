import { spawn } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const PRELOAD = fileURLToPath(new URL('../fixtures/record-resolutions.mjs', import.meta.url))
const PROBE = fileURLToPath(new URL('../fixtures/import-in-turn.mjs', import.meta.url))

/**
 * Imports `specifiers` in turn in a fresh Node process, on the built dist,
 * and returns the resolutions (`specifier url` lines) each import caused.
 */
export async function resolutionsOf (dir: string, specifiers: string[]): Promise<Map<string, string[]>> {
  const log = join(dir, 'resolutions.log')
  const env: NodeJS.ProcessEnv = { ...process.env, GATEHOUSE_RESOLUTION_LOG: log }
  // The test runner's loaders (tsx, the gatehouse-src condition) stay out:
  // the child loads what an installed package would.
  delete env.NODE_OPTIONS
  const child = spawn(process.execPath, ['--import', PRELOAD, PROBE, ...specifiers], { env, stdio: ['ignore', 'inherit', 'pipe'] })
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => { stderr += String(chunk) })
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
  if (code !== 0) throw new Error(`the probe exited with ${String(code)}: ${stderr}`)
  const byImport = new Map<string, string[]>()
  let lines: string[] = []
  for (const line of (await readFile(log, 'utf8')).split('\n')) {
    if (line.startsWith('-- imported ')) {
      byImport.set(line.slice('-- imported '.length), lines)
      lines = []
    } else if (line !== '') {
      lines.push(line)
    }
  }
  return byImport
}
