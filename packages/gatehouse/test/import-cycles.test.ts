// Issue 26, "0 import cycles": scripts/check-cycles.mjs (`pnpm test` runs it
// on the workspace) finds cycles with the graph of scripts/lib/import-cycles.mjs.
// Here that graph runs on small fake workspaces, so each kind of cycle is
// shown to be found, and the allow-list of known cycles to stay exact.
// D-TOOLING-29, D-TOOLING-30.
import { test } from 'tap'
import { fileURLToPath, pathToFileURL } from 'node:url'

interface Graph { files: string[], imports: Map<string, string[]>, unresolved: string[] }
interface Group { files: string[], cycle: string[] }
interface ImportCycles {
  importGraph: (root: string) => Promise<Graph>
  cycleGroups: (graph: Graph) => Group[]
  compareWithKnown: (groups: Group[], known: Array<{ name: string, files: string[] }>) => string[]
}

const LIB = pathToFileURL(fileURLToPath(new URL('../../../scripts/lib/import-cycles.mjs', import.meta.url))).href
const { importGraph, cycleGroups, compareWithKnown } = await import(LIB) as ImportCycles

/** A package of the fake workspace: its package.json with the gatehouse-src condition, and its sources. */
function fakePackage (name: string, sources: Record<string, string>): { 'package.json': string, src: Record<string, string> } {
  return {
    'package.json': JSON.stringify({ name, type: 'module', exports: { '.': { 'gatehouse-src': './src/index.ts', default: './dist/index.js' } } }),
    src: sources
  }
}

test('a cycle through a type-only import, a cycle across packages and a self-import are each found, with one circle named', async (t) => {
  const root = t.testdir({
    packages: {
      a: fakePackage('fake-a', {
        'index.ts': "import { b } from 'fake-b'\nimport { x } from './x.js'\nexport const a = b + x\n",
        'x.ts': "import type { Y } from './y.js'\nexport const x: Y = 1\n",
        'y.ts': "import { x } from './x.js'\nexport type Y = number\nexport const y = x\n",
        'leaf.ts': 'export const leaf = 1\n'
      }),
      b: fakePackage('fake-b', {
        'index.ts': "import { leaf } from '../../a/src/leaf.js'\nexport const b = leaf\nexport async function later (): Promise<unknown> { return await import('fake-a') }\n",
        'self.ts': "import * as me from './self.js'\nexport const self = me\n"
      })
    },
    node_modules: { 'fake-a': t.fixture('symlink', '../packages/a'), 'fake-b': t.fixture('symlink', '../packages/b') }
  })
  const graph = await importGraph(root)
  t.same(graph.unresolved, [])
  t.same(graph.files, ['packages/a/src/index.ts', 'packages/a/src/leaf.ts', 'packages/a/src/x.ts', 'packages/a/src/y.ts', 'packages/b/src/index.ts', 'packages/b/src/self.ts'])
  t.same(graph.imports.get('packages/a/src/index.ts'), ['packages/a/src/x.ts', 'packages/b/src/index.ts'], 'another package by name resolves to its src/index.ts')
  t.same(cycleGroups(graph), [
    { files: ['packages/a/src/index.ts', 'packages/b/src/index.ts'], cycle: ['packages/a/src/index.ts', 'packages/b/src/index.ts', 'packages/a/src/index.ts'] },
    { files: ['packages/a/src/x.ts', 'packages/a/src/y.ts'], cycle: ['packages/a/src/x.ts', 'packages/a/src/y.ts', 'packages/a/src/x.ts'] },
    { files: ['packages/b/src/self.ts'], cycle: ['packages/b/src/self.ts', 'packages/b/src/self.ts'] }
  ])
})

test('a local import that names no file is reported: a graph with a hole could miss a cycle', async (t) => {
  const root = t.testdir({ packages: { a: fakePackage('fake-a', { 'index.ts': "import { gone } from './gone.js'\nexport const a = gone\n" }) } })
  const graph = await importGraph(root)
  t.same(graph.unresolved, ['packages/a/src/index.ts: ./gone.js'])
})

test('the known cycles are an exact list: one not on it fails, and so does an entry no longer found', async (t) => {
  const groups: Group[] = [
    { files: ['p/a.ts', 'p/b.ts'], cycle: ['p/a.ts', 'p/b.ts', 'p/a.ts'] },
    { files: ['q/c.ts', 'q/d.ts', 'q/e.ts'], cycle: ['q/c.ts', 'q/d.ts', 'q/c.ts'] }
  ]
  t.same(compareWithKnown(groups, [{ name: 'p', files: ['p/b.ts', 'p/a.ts'] }, { name: 'q', files: ['q/e.ts', 'q/c.ts', 'q/d.ts'] }]), [], 'every cycle known, in any order')
  t.same(compareWithKnown(groups, [{ name: 'p', files: ['p/a.ts', 'p/b.ts'] }]), [
    'an import cycle: q/c.ts → q/d.ts → q/c.ts (files in the circle: q/c.ts, q/d.ts, q/e.ts)'
  ], 'a new cycle fails, naming a circle and every file in it')
  t.same(compareWithKnown(groups.slice(0, 1), [{ name: 'p', files: ['p/a.ts', 'p/b.ts'] }, { name: 'q', files: ['q/c.ts', 'q/d.ts', 'q/e.ts'] }]), [
    'the known cycle "q" (q/c.ts, q/d.ts, q/e.ts) is no longer found as listed: remove it from KNOWN_CYCLES in scripts/check-cycles.mjs (or correct its files)'
  ], 'a removed cycle still listed fails')
  t.equal(compareWithKnown(groups, [{ name: 'p', files: ['p/a.ts', 'p/b.ts'] }, { name: 'q', files: ['q/c.ts', 'q/d.ts'] }]).length, 2, 'a cycle that grew or shrank is neither known nor found')
})
