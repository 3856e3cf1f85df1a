// Issue 26, item 5: what Gatehouse keeps once per process is listed in one
// module, packages/core/src/process-wide.ts, each entry with where it is
// used and why (D-CORE-13). This test keeps that list complete and true:
// no process-wide state or registered symbol elsewhere in packages/*/src,
// and no entry that is not used where it says.
import { test } from 'tap'
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { brandClass, PROCESS_WIDE, processWide, type ProcessWideEntry } from '@fastify-gatehouse/core'

const ROOT = fileURLToPath(new URL('../../..', import.meta.url))
const MODULE = 'packages/core/src/process-wide.ts'
const entries = PROCESS_WIDE as Readonly<Record<string, ProcessWideEntry>>

/** Every TypeScript source file of packages/*\/src, relative to the root. */
function sourceFiles (): string[] {
  const files: string[] = []
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) walk(path)
      else if (/\.m?ts$/.test(entry.name) && !entry.name.endsWith('.d.ts')) files.push(relative(ROOT, path).split('\\').join('/'))
    }
  }
  for (const pkg of readdirSync(join(ROOT, 'packages'))) {
    try { walk(join(ROOT, 'packages', pkg, 'src')) } catch { /* a folder without src */ }
  }
  return files.sort()
}

/** A use of a process-wide name found in the sources: its kind, name (or the text when not a literal name), file and line. */
interface Use { kind: ProcessWideEntry['kind'] | 'globalThis', name: string, at: string }

/** Comments removed, lines kept: a comment may name `globalThis` or `Symbol.for` to explain them. */
function code (text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, (comment) => comment.replace(/[^\n]/g, ' ')).replace(/(^|[^:'"`])\/\/.*$/gm, '$1')
}

function usesIn (file: string): Use[] {
  const lines = code(readFileSync(join(ROOT, file), 'utf8')).split('\n')
  const uses: Use[] = []
  lines.forEach((line, i) => {
    const at = `${file}:${i + 1}`
    if (/\bglobalThis\b/.test(line)) uses.push({ kind: 'globalThis', name: line.trim(), at })
    for (const m of line.matchAll(/Symbol\.for\(\s*(?:'fastify-gatehouse\.([^']+)'|([^)]*))\)/g)) uses.push({ kind: 'key', name: m[1] ?? `not a literal name: ${m[2] ?? ''}`, at })
    for (const m of line.matchAll(/\bprocessWide\(\s*(?:'([^']+)'|([^,)]*))/g)) uses.push({ kind: 'state', name: m[1] ?? `not a literal name: ${m[2] ?? ''}`, at })
    for (const m of line.matchAll(/\bbrandClass\([^,]+,\s*(?:'([^']+)'|([^)]*))\)/g)) uses.push({ kind: 'brand', name: m[1] ?? `not a literal name: ${m[2] ?? ''}`, at })
  })
  return uses
}

const uses = sourceFiles().filter((file) => file !== MODULE).flatMap(usesIn)

test('outside process-wide.ts, packages/*/src holds no globalThis state and no registered symbol, brand or process-wide value the list does not name', async (t) => {
  t.ok(uses.length >= Object.keys(entries).length, 'the scan finds the uses (a control against a scan that finds nothing)')
  const unlisted = uses.filter(({ kind, name }) => kind === 'globalThis' || entries[name]?.kind !== kind)
  t.same(unlisted.map(({ kind, name, at }) => `${at}: ${kind} ${name}`), [],
    'each is listed in PROCESS_WIDE (packages/core/src/process-wide.ts) with its kind, where it is used and why it must be one per process')
})

test('every entry of the list is used, where it says, and says why', async (t) => {
  for (const [name, entry] of Object.entries(entries)) {
    const where = uses.filter((use) => use.name === name && use.kind === entry.kind).map((use) => use.at.replace(/:\d+$/, ''))
    // A key may be read elsewhere by its constant; a name is created once.
    t.same([...new Set(where)], [entry.at], `${name}: a ${entry.kind} used in ${entry.at} only`)
    t.ok(entry.why.length > 40, `${name} says why it is process-wide`)
  }
  t.ok(Object.isFrozen(PROCESS_WIDE))
})

test('processWide and brandClass take only listed names of their kind, and the error says where to list one', async (t) => {
  const take = processWide as (name: string, create: () => unknown) => unknown
  t.throws(() => take('mine.cache.v1', () => new Map()), { name: 'TypeError', message: '"mine.cache.v1" is not a process-wide state name: list it in PROCESS_WIDE (packages/core/src/process-wide.ts) with where it is used and why' })
  t.throws(() => take('core.Avatar.v1', () => new Map()), { message: /^"core\.Avatar\.v1" is not a process-wide state name/ }, 'a brand is not state')
  class Mine {}
  t.throws(() => { (brandClass as (target: typeof Mine, name: string) => void)(Mine, 'core.validatedOptions.v1') }, { message: /^"core\.validatedOptions\.v1" is not a process-wide brand name/ })
})

test('a listed value is one per process: every asker gets the first one made, kept on globalThis under its registered symbol', async (t) => {
  const first = processWide('core.emittedWarnings.v1', () => new Set<string>())
  t.equal(processWide('core.emittedWarnings.v1', () => new Set<string>()), first, 'a second asker (another copy) gets the same value')
  t.equal((globalThis as unknown as Record<symbol, unknown>)[Symbol.for('fastify-gatehouse.core.emittedWarnings.v1')], first)
})
