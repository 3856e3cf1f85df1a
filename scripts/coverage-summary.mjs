#!/usr/bin/env node
// Prints the coverage of packages/*/src per package from c8's reports
// (coverage/coverage-summary.json, coverage/coverage-final.json) and fails
// when a package's line coverage is under the floor.
//
//   node scripts/coverage-summary.mjs                  the table; exit 1 under the floor
//   node scripts/coverage-summary.mjs --branches auth  also every uncovered branch of those packages
//
// `pnpm test` runs the suite under c8 (see .c8rc.json): the tests run on the
// TypeScript sources through tsx, whose inline source maps c8 follows, so
// the figures are for the .ts files; files no test loads count as 0%.
// D-TOOLING-11.
import { existsSync, readFileSync, rmSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

const FLOOR = 90 // % of lines, for each package's src

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const reports = join(root, 'coverage')
const summaryFile = join(reports, 'coverage-summary.json')
if (!existsSync(summaryFile)) {
  console.error('coverage: no coverage/coverage-summary.json (run the suite under c8: pnpm test)')
  process.exit(1)
}
// The raw V8 data (hundreds of MB) is only needed to make the reports.
rmSync(join(reports, 'tmp'), { recursive: true, force: true })

// A module of interfaces and types only compiles to nothing: nothing loads
// it, and c8's `all` would count its lines as uncovered. Such files are
// left out (listed below the table).
function typeOnly (file) {
  if (!existsSync(file)) return false
  const { outputText } = ts.transpileModule(readFileSync(file, 'utf8'), { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } })
  return outputText.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '').replace(/export\s*\{\s*\};?/g, '').trim() === ''
}

const METRICS = ['lines', 'branches', 'functions', 'statements']
const summary = JSON.parse(readFileSync(summaryFile, 'utf8'))
const packages = new Map()
const typeFiles = []
for (const [file, figures] of Object.entries(summary)) {
  const at = /packages[/\\]([^/\\]+)[/\\]src[/\\]/.exec(file)
  if (at === null) continue
  if (figures.lines.covered === 0 && typeOnly(file)) { typeFiles.push(relative(root, file)); continue }
  const entry = packages.get(at[1]) ?? { files: 0, low: [], ...Object.fromEntries(METRICS.map((m) => [m, { covered: 0, total: 0 }])) }
  entry.files++
  for (const m of METRICS) {
    entry[m].covered += figures[m].covered
    entry[m].total += figures[m].total
  }
  if (figures.lines.pct < FLOOR) entry.low.push(`${relative(root, file)} ${figures.lines.pct}%`)
  packages.set(at[1], entry)
}

const pct = ({ covered, total }) => total === 0 ? 100 : Math.floor((1000 * covered) / total) / 10
const cell = (text, width) => String(text).padStart(width)
console.log(`coverage of packages/*/src (floor: ${FLOOR}% of lines per package)`)
console.log(`${'package'.padEnd(14)}${cell('files', 6)}${cell('lines', 9)}${cell('branches', 10)}${cell('functions', 11)}${cell('statements', 12)}`)
const under = []
const names = [...packages.keys()].sort()
for (const name of names) {
  const p = packages.get(name)
  const lines = pct(p.lines)
  if (lines < FLOOR) under.push(name)
  console.log(`${name.padEnd(14)}${cell(p.files, 6)}${cell(`${lines}%`, 9)}${cell(`${pct(p.branches)}%`, 10)}${cell(`${pct(p.functions)}%`, 11)}${cell(`${pct(p.statements)}%`, 12)}${lines < FLOOR ? '  under the floor' : ''}`)
}
const total = Object.fromEntries(METRICS.map((m) => [m, { covered: 0, total: 0 }]))
for (const p of packages.values()) for (const m of METRICS) { total[m].covered += p[m].covered; total[m].total += p[m].total }
console.log(`${'all'.padEnd(14)}${cell(names.reduce((n, k) => n + packages.get(k).files, 0), 6)}${cell(`${pct(total.lines)}%`, 9)}${cell(`${pct(total.branches)}%`, 10)}${cell(`${pct(total.functions)}%`, 11)}${cell(`${pct(total.statements)}%`, 12)}`)
if (typeFiles.length > 0) console.log(`left out (types only, no runtime code): ${typeFiles.join(', ')}`)
const lowFiles = names.flatMap((n) => packages.get(n).low)
if (lowFiles.length > 0) console.log(`files under ${FLOOR}% of lines:\n  ${lowFiles.join('\n  ')}`)

// What an uncovered V8 block range is, from the code at its start. Source
// maps place the start of a range inside an expression on the token before
// the operator (`name ?? String(i)` for the `??` fallback), so the first
// operator in the text tells which side was never taken.
const OPERATOR = { '??': '?? fallback never used', '||': '|| right side never evaluated', '&&': '&& right side never evaluated', '?': 'ternary: then-side never taken', ':': 'ternary: else-side never taken' }
function what (text) {
  if (/^(\} )?catch\b/.test(text)) return 'catch never entered'
  if (/^(case|default)\b/.test(text)) return 'case never hit'
  if (/^throw\b/.test(text)) return 'never thrown'
  if (/^return\b/.test(text)) return 'early return never taken'
  if (/^(continue|break)\b/.test(text)) return `${text.split(/\W/)[0]} never taken`
  if (/^(\{|if\b)/.test(text)) return 'block never entered'
  const op = /\?\?|\|\||&&|\?(?!\.)|:/.exec(text)
  return op === null ? 'never reached' : OPERATOR[op[0]]
}

const wanted = process.argv.indexOf('--branches')
if (wanted !== -1) {
  const pick = new Set(process.argv.slice(wanted + 1))
  const final = JSON.parse(readFileSync(join(reports, 'coverage-final.json'), 'utf8'))
  for (const [file, data] of Object.entries(final).sort(([a], [b]) => a.localeCompare(b))) {
    const at = /packages[/\\]([^/\\]+)[/\\]src[/\\]/.exec(file)
    if (at === null || !pick.has(at[1]) || typeFiles.includes(relative(root, file))) continue
    const source = existsSync(file) ? readFileSync(file, 'utf8').split('\n') : []
    const seen = new Set()
    const show = (kind, { start, end }) => {
      const key = `${start.line}:${start.column}`
      if (seen.has(key)) return
      seen.add(key)
      const line = source[start.line - 1] ?? ''
      const text = line.slice(start.column).trim()
      const span = end.line > start.line ? ` (to line ${end.line})` : ''
      console.log(`${relative(root, file)}:${start.line}:${start.column + 1} ${kind === 'function' ? 'function never called' : what(text)}${span}: ${text.slice(0, 100)}`)
    }
    // V8 reports a function never called as a function, not as a branch.
    for (const [id, fn] of Object.entries(data.fnMap)) {
      if (data.f[id] === 0) show('function', fn.loc)
    }
    for (const [id, branch] of Object.entries(data.branchMap)) {
      if (data.b[id].every((hits) => hits === 0)) show('branch', branch.loc)
    }
  }
}

if (under.length > 0) {
  console.error(`coverage: ${under.join(', ')} under ${FLOOR}% of lines`)
  process.exit(1)
}
