import t from 'tap'
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

// The promise of docs/error-codes.md (D-CODES): a code a caller can meet is listed, and a listed code still exists.

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))

/** Every `'GATEHOUSE_…'` string literal in the packages' sources: the codes they can throw. */
async function codesInSources (): Promise<Set<string>> {
  const codes = new Set<string>()
  const packages = await readdir(join(ROOT, 'packages'))
  // A code names its package (GATEHOUSE_<PACKAGE>_…); other GATEHOUSE_ strings are environment variables.
  const ofPackage = new RegExp(`^GATEHOUSE_(${packages.map((p) => p.toUpperCase()).join('|')})_`)
  for (const pkg of packages) {
    const src = join(ROOT, 'packages', pkg, 'src')
    const files = await readdir(src, { recursive: true }).catch(() => [] as string[])
    for (const file of files.filter((f) => f.endsWith('.ts'))) {
      for (const match of (await readFile(join(src, file), 'utf8')).matchAll(/'(GATEHOUSE_[A-Z0-9_]+)'/g)) if (ofPackage.test(match[1]!)) codes.add(match[1]!)
    }
  }
  return codes
}

t.test('docs/error-codes.md lists exactly the codes the packages throw', async (t) => {
  const documented = new Set([...(await readFile(join(ROOT, 'docs', 'error-codes.md'), 'utf8')).matchAll(/^\| `(GATEHOUSE_[A-Z0-9_]+)`/gm)].map((m) => m[1]!))
  const thrown = await codesInSources()
  t.ok(thrown.size > 50, `found the codes in the sources (${thrown.size})`)
  t.same([...thrown].filter((code) => !documented.has(code)).sort(), [], 'every code in packages/*/src has a row in docs/error-codes.md')
  t.same([...documented].filter((code) => !thrown.has(code)).sort(), [], 'every row names a code some package still throws')
})
