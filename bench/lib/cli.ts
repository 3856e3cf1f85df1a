// What the benchmark scripts share: reading the suite and numeric options
// from the command line, and publishing a table into docs/benchmarks.md.
import { readFile, writeFile } from 'node:fs/promises'
import type { Suite } from './suite.js'

/** Prints the usage and exits 2: the command line was wrong. */
export function usage (text: string, problem?: string): never {
  if (problem !== undefined) console.error(problem)
  console.error(`usage: ${text}`)
  process.exit(2)
}

/** The suite named by the first positional argument (a file under suites/). */
export async function loadSuite (positionals: readonly string[], usageText: string): Promise<{ name: string, suite: Suite }> {
  const name = positionals[0]
  if (name === undefined || !/^[a-z-]+$/.test(name)) usage(usageText)
  const { suite } = await import(`../suites/${name}.js`).catch(() => usage(usageText, `no suite "${name}"`)) as { suite: Suite }
  return { name, suite }
}

/** A whole-number option within [min, max]; anything else is a usage error. */
export function wholeNumber (option: string, value: string | undefined, min: number, max: number, usageText: string): number {
  const n = Number(value)
  if (!Number.isInteger(n) || n < min || n > max) usage(usageText, `--${option} takes a whole number from ${min} to ${max}, not ${JSON.stringify(value)}`)
  return n
}

/** A comma-separated list of whole numbers within [min, max], each greater than the one before (`growing` says why). */
export function growingSizes (option: string, value: string, min: number, max: number, usageText: string, growing: string): number[] {
  const sizes = value.split(',').map((s) => wholeNumber(option, s, min, max, usageText))
  if (sizes.some((n, i) => i > 0 && n <= sizes[i - 1]!)) usage(usageText, `--${option} must grow: ${growing}`)
  return sizes
}

/** A cap in whole minutes from 1 to `max`, in ms. */
export const minutes = (option: string, value: string, max: number, usageText: string): number => wholeNumber(option, value, 1, max, usageText) * 60_000

/** The options of a run that forks workers, besides its own: `--no-pin` (D-BENCH-02) and `--write`. */
export const RUN_FLAGS = {
  'no-pin': { type: 'boolean', default: false },
  write: { type: 'boolean', default: false }
} as const

/**
 * The options `names` as given on the command line, for the table's
 * command: those left at their default (in `options`) or not given are
 * left out, a flag is its name alone.
 */
export function givenArgs (options: Readonly<Record<string, { type: string, default?: unknown }>>, values: Readonly<Record<string, unknown>>, names: readonly string[]): string {
  return names.flatMap((name) => {
    const value = values[name]
    if (value === undefined || value === false || value === options[name]?.default) return []
    return value === true ? [`--${name}`] : [`--${name} ${String(value)}`]
  }).join(' ')
}

/**
 * Writes `table` into docs/benchmarks.md between `<!-- marker -->` and
 * `<!-- /marker -->`, or appends the block when the markers are not there yet.
 */
export async function publish (marker: string, table: string): Promise<void> {
  const path = new URL('../../docs/benchmarks.md', import.meta.url)
  const start = `<!-- ${marker} -->`
  const end = `<!-- /${marker} -->`
  let doc = await readFile(path, 'utf8').catch(() => '# Benchmarks\n')
  const block = `${start}\n${table}\n${end}`
  const at = doc.indexOf(start)
  doc = at === -1 ? `${doc.trimEnd()}\n\n${block}\n` : doc.slice(0, at) + block + doc.slice(doc.indexOf(end) + end.length)
  await writeFile(path, doc)
  console.error(`written to docs/benchmarks.md (${marker})`)
}

/** The scenarios `--only` names (all when absent), the baseline always among them; an unknown name is a usage error. */
export function selectScenarios (suite: Suite, only: string | undefined, usageText: string): string[] {
  const all = Object.keys(suite.scenarios)
  const wanted = only?.split(',')
  const unknown = wanted?.filter((n) => !all.includes(n)) ?? []
  if (unknown.length > 0) usage(usageText, `no scenario ${unknown.join(', ')}; this suite has ${all.join(', ')}`)
  return all.filter((n) => wanted === undefined || wanted.includes(n) || n === suite.baseline)
}
