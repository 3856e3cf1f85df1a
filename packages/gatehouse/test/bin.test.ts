// Issue 14: the CLI from an install. The umbrella package has the
// `gatehouse` bin (`node_modules/.bin/gatehouse users list`); it runs the built
// output with plain node, as an installed package would.
import { test } from 'tap'
import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { runNode, type NodeRun } from '../../../test-helpers/child.js'

const PACKAGE = fileURLToPath(new URL('..', import.meta.url))
const BIN = join(PACKAGE, 'bin', 'gatehouse.js')

// No tsx, no source condition: what an installed `gatehouse` bin runs.
async function run (args: string[], options: { stdin?: string, cwd?: string } = {}): Promise<NodeRun> {
  return await runNode([BIN, ...args], { ...options, env: { NODE_OPTIONS: '' } })
}

test('package.json declares the gatehouse bin and ships it', async (t) => {
  const pkg = JSON.parse(await readFile(join(PACKAGE, 'package.json'), 'utf8'))
  t.same(pkg.bin, { gatehouse: './bin/gatehouse.js' })
  t.ok(pkg.files.includes('bin'))
  t.match(await readFile(BIN, 'utf8'), /^#!\/usr\/bin\/env node\n/)
  // From a clone: `pnpm -s gatehouse …` at the root runs the server's bin, building first only when a source changed (D-CLI-25).
  const root = JSON.parse(await readFile(join(PACKAGE, '..', '..', 'package.json'), 'utf8'))
  t.equal(root.scripts.gatehouse, 'node scripts/gatehouse.mjs')
})

test('the umbrella bin runs the CLI (after pnpm build)', async (t) => {
  if (!existsSync(fileURLToPath(new URL('../../server/dist/cli/main.js', import.meta.url)))) {
    t.fail('packages/server/dist is missing: run pnpm build (pnpm test does)')
    return
  }
  const help = await run(['--help'])
  t.equal(help.code, 0, help.stderr)
  t.match(help.stdout, /^gatehouse: run a Gatehouse server; manage its API keys, users and PostgreSQL schema\./)
  t.match(help.stdout, /gatehouse users hash/)

  const dir = t.testdir({})
  const missing = await run(['users', 'list', '--store', join(dir, 'typo')])
  t.equal(missing.code, 1)
  t.match(missing.stderr, /^gatehouse: no store at /)

  const added = await run(['users', 'add', 'alice', '--store', join(dir, 'store')], { stdin: 'wonderland-pw\n' })
  t.equal(added.code, 0, added.stderr)
  const listed = await run(['users', 'list', '--store', join(dir, 'store')])
  t.equal(listed.code, 0)
  t.match(listed.stdout, /^IDENTITY\s+TAGS\s+STATUS\s+UPDATED\nalice\s/)

  const hash = await run(['users', 'hash'], { stdin: 'a password\n' })
  t.equal(hash.code, 0, hash.stderr)
  t.match(hash.stdout, /^scrypt\$32768,8,1\$\S+\n$/)
  // The common-password list is found from the built output (auth's data/ ships beside dist/).
  const common = await run(['users', 'add', 'bob', '--store', join(dir, 'store')], { stdin: 'password123\n' })
  t.equal(common.code, 1)
  t.equal(common.stderr, 'gatehouse: The password is one of the most common passwords; choose another. (rule: common)\n')

  const usage = await run(['frobnicate'])
  t.equal(usage.code, 2)
})
