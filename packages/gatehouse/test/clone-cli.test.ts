// Issue 25, item 16: `gatehouse` in a clone (the root script,
// scripts/gatehouse.mjs) runs the built CLI at once and builds only when a
// source changed (D-CLI-25). The launcher runs here in a fake clone: its two
// files copied beside a fake `tsc` (which logs its arguments and writes the
// build infos anew, as tsc -b renews them) and a fake server bin (which prints its
// arguments), with file times set by hand, so nothing real is rebuilt.
import { test } from 'tap'
import { existsSync, mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { runNode, type NodeRun } from '../../../test-helpers/child.js'

const ROOT = fileURLToPath(new URL('../../..', import.meta.url))
// Inputs an hour ago, builds half an hour ago: "current"; a change is now.
const INPUTS = Date.now() / 1000 - 3600
const BUILT = INPUTS + 1800
const CHANGED = INPUTS + 3000

const FAKE_TSC = `
const { appendFileSync, writeFileSync } = require('node:fs')
const { join } = require('node:path')
appendFileSync(join(__dirname, 'calls.log'), process.argv.slice(2).join(' ') + '\\n')
process.stdout.write('fake tsc output\\n')
if (process.env.FAKE_TSC_FAIL === '1') process.exit(2)
for (const dir of ['core', 'server']) writeFileSync(join(process.cwd(), 'packages', dir, 'tsconfig.tsbuildinfo'), '{}')
`
const FAKE_BIN = `
process.stdout.write(JSON.stringify(process.argv.slice(2)) + '\\n')
process.exitCode = process.argv.includes('--fail') ? 3 : 0
`

function setTimes (path: string, seconds: number): void {
  utimesSync(path, seconds, seconds)
}

/** A clone with core ← server, built and current. */
function fakeClone (dir: string): string {
  const tree: Record<string, string> = {
    'tsconfig.base.json': '{}',
    'scripts/gatehouse.mjs': readFileSync(join(ROOT, 'scripts', 'gatehouse.mjs'), 'utf8'),
    'scripts/lib/stale-builds.mjs': readFileSync(join(ROOT, 'scripts', 'lib', 'stale-builds.mjs'), 'utf8'),
    'node_modules/typescript/bin/tsc': FAKE_TSC,
    'packages/core/tsconfig.json': JSON.stringify({ include: ['src'] }),
    'packages/core/src/index.ts': 'export const a = 1\n',
    'packages/core/src/deep/more.ts': 'export const b = 2\n',
    'packages/server/tsconfig.json': JSON.stringify({ include: ['src'], references: [{ path: '../core' }] }),
    'packages/server/src/index.ts': 'export const c = 3\n',
    'packages/server/bin/gatehouse.js': FAKE_BIN,
    'packages/core/tsconfig.tsbuildinfo': '{}',
    'packages/server/tsconfig.tsbuildinfo': '{}'
  }
  for (const [path, text] of Object.entries(tree)) {
    mkdirSync(join(dir, path, '..'), { recursive: true })
    writeFileSync(join(dir, path), text)
  }
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}')
  writeFileSync(join(dir, 'packages/server/package.json'), '{"type":"module"}')
  for (const path of ['tsconfig.base.json', 'packages/core/tsconfig.json', 'packages/core/src/index.ts', 'packages/core/src/deep/more.ts',
    'packages/core/src/deep', 'packages/core/src', 'packages/server/tsconfig.json', 'packages/server/src/index.ts', 'packages/server/src']) {
    setTimes(join(dir, path), INPUTS)
  }
  setTimes(join(dir, 'packages/core/tsconfig.tsbuildinfo'), BUILT)
  setTimes(join(dir, 'packages/server/tsconfig.tsbuildinfo'), BUILT)
  return dir
}

async function gatehouse (clone: string, args: string[], env: Record<string, string> = {}): Promise<NodeRun> {
  return await runNode([join(clone, 'scripts', 'gatehouse.mjs'), ...args], { cwd: clone, env: { NODE_OPTIONS: '', ...env } })
}

function tscCalls (clone: string): string[] {
  const log = join(clone, 'node_modules', 'typescript', 'bin', 'calls.log')
  return existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : []
}

test('a current build runs the CLI at once, with its arguments and exit code, and builds nothing', async (t) => {
  const clone = fakeClone(t.testdir())
  const run = await gatehouse(clone, ['users', 'list', '--store', 'x y'])
  t.equal(run.code, 0, run.stderr)
  t.equal(run.stdout, '["users","list","--store","x y"]\n')
  t.equal(run.stderr, '')
  t.same(tscCalls(clone), [])

  const failing = await gatehouse(clone, ['--fail'])
  t.equal(failing.code, 3)
  t.same(tscCalls(clone), [])
})

test('a changed source in a referenced project builds first (tsc output on stderr), then runs; the next call does not build', async (t) => {
  const clone = fakeClone(t.testdir())
  setTimes(join(clone, 'packages/core/src/deep/more.ts'), CHANGED)
  const run = await gatehouse(clone, ['keys', 'list'])
  t.equal(run.code, 0, run.stderr)
  t.equal(run.stdout, '["keys","list"]\n', 'stdout is the CLI\'s alone')
  t.equal(run.stderr, 'gatehouse: building first, sources changed in packages/core (tsc -b packages/server)\nfake tsc output\n')
  t.same(tscCalls(clone), ['-b packages/server'])

  const again = await gatehouse(clone, ['keys', 'list'])
  t.equal(again.stderr, '')
  t.same(tscCalls(clone), ['-b packages/server'], 'built once')
})

test('a removed source, a changed tsconfig, the shared base config or a missing build info build first', async (t) => {
  const cases: Array<[string, (clone: string) => void, string]> = [
    ['removed file', (clone) => { rmSync(join(clone, 'packages/server/src/index.ts')); setTimes(join(clone, 'packages/server/src'), CHANGED) }, 'packages/server'],
    ['tsconfig.json', (clone) => setTimes(join(clone, 'packages/server/tsconfig.json'), CHANGED), 'packages/server'],
    ['tsconfig.base.json', (clone) => setTimes(join(clone, 'tsconfig.base.json'), CHANGED), 'packages/core, packages/server'],
    ['never built', (clone) => rmSync(join(clone, 'packages/core/tsconfig.tsbuildinfo')), 'packages/core']
  ]
  for (const [name, change, stale] of cases) {
    const clone = fakeClone(t.testdir())
    change(clone)
    const run = await gatehouse(clone, ['--help'])
    t.equal(run.code, 0, `${name}: ${run.stderr}`)
    t.match(run.stderr, `sources changed in ${stale} (tsc -b packages/server)`, name)
    t.same(tscCalls(clone), ['-b packages/server'], name)
    t.equal(run.stdout, '["--help"]\n', name)
  }
})

test('a failed build says so, exits 1 and does not run a stale CLI', async (t) => {
  const clone = fakeClone(t.testdir())
  setTimes(join(clone, 'packages/server/src/index.ts'), CHANGED)
  const run = await gatehouse(clone, ['users', 'list'], { FAKE_TSC_FAIL: '1' })
  t.equal(run.code, 1)
  t.equal(run.stdout, '')
  t.match(run.stderr, /^gatehouse: building first, sources changed in packages\/server \(tsc -b packages\/server\)\nfake tsc output\ngatehouse: the build failed \(tsc exited 2\); fix it, or run `npx -y pnpm@10\.34\.9 build` to see it again\n$/)
})

test('in this clone (after pnpm build) the root script is the launcher and runs the real CLI', async (t) => {
  const root = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
  t.equal(root.scripts.gatehouse, 'node scripts/gatehouse.mjs')
  const run = await runNode([join(ROOT, 'scripts', 'gatehouse.mjs'), '--help'], { env: { NODE_OPTIONS: '' } })
  t.equal(run.code, 0, run.stderr)
  t.match(run.stdout, /^gatehouse: run a Gatehouse server; manage its API keys, users and PostgreSQL schema\./)
})
