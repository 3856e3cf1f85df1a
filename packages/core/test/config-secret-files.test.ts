// What `!file` / `$file` / `NAME_FILE` read: only a regular file, and never
// more than 64 KiB whatever its size says (issue 25 review, items 3 and 4;
// D-CONFIG-14). A FIFO used to hang the boot (opening it for reading blocks
// until a writer comes); a /proc file (size 0) was read whole.
import { test } from 'tap'
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Type } from '@sinclair/typebox'
import { defineComponent, loadRecipe, readEnvironmentValue } from '@fastify-gatehouse/core'

const MAX_SECRET_FILE_BYTES = 64 * 1024

const COMPONENTS = [
  defineComponent({
    name: 'auth',
    order: 400,
    schema: Type.Object({
      bearer: Type.Optional(Type.Record(Type.String(), Type.Object({ token: Type.String() }, { additionalProperties: false })))
    }, { additionalProperties: false }),
    plugin: async () => {}
  })
]

/** The load's error (code and message), or 'loaded', or 'hung' past a 10 s ceiling. */
async function loadOutcome (file: string, env: Record<string, string> = {}): Promise<{ code?: string, message: string } | 'loaded' | 'hung'> {
  const load = loadRecipe(file, { components: COMPONENTS, env }).then(() => 'loaded' as const, (err: unknown) => err as Error & { code?: string })
  // Hang ceiling only: the refusal comes at once; before the fix the FIFO never answered.
  const ceiling = new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 10_000).unref())
  return await Promise.race([load, ceiling])
}

function hasMkfifo (): boolean {
  try {
    execFileSync('mkfifo', ['--version'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

test('a FIFO named by !file or NAME_FILE is refused at once, naming the key path and the file', { skip: process.platform === 'win32' || !hasMkfifo() ? 'no mkfifo on this platform' : false }, async (t) => {
  const dir = t.testdir({})
  execFileSync('mkfifo', [join(dir, 'pipe')])
  const file = join(dir, 'g.yaml')
  writeFileSync(file, 'auth_middleware:\n  bearer:\n    ci:\n      token: !file pipe\n')
  const viaTag = await loadOutcome(file)
  t.not(viaTag, 'hung', '!file: no hang')
  t.match(viaTag, { code: 'GATEHOUSE_CORE_CONFIG_SECRET', message: `${file}: auth_middleware.bearer.ci.token: file pipe is not a regular file` })

  writeFileSync(file, 'auth_middleware:\n  bearer:\n    ci:\n      token: !env DEPLOY_TOKEN\n')
  const viaVariable = await loadOutcome(file, { DEPLOY_TOKEN_FILE: 'pipe' })
  t.not(viaVariable, 'hung', 'NAME_FILE: no hang')
  t.match(viaVariable, { code: 'GATEHOUSE_CORE_CONFIG_SECRET', message: `${file}: auth_middleware.bearer.ci.token: file pipe (from DEPLOY_TOKEN_FILE) is not a regular file` })

  // The CLI's GATEHOUSE_ADMIN_PASSWORD_FILE goes through the same reader (server/src/cli/secret-variables.ts).
  const cli = await readEnvironmentValue('GATEHOUSE_ADMIN_PASSWORD', { env: { GATEHOUSE_ADMIN_PASSWORD_FILE: 'pipe' }, dir }, '$GATEHOUSE_ADMIN_PASSWORD').then(() => 'read', (err: unknown) => err as Error & { code?: string })
  t.match(cli, { code: 'GATEHOUSE_CORE_CONFIG_SECRET', message: '$GATEHOUSE_ADMIN_PASSWORD: file pipe (from GATEHOUSE_ADMIN_PASSWORD_FILE) is not a regular file' })
})

// /proc/kallsyms: a regular file whose stat size is 0 and whose content is megabytes.
const PROC_FILE = '/proc/kallsyms'
function procFileOverLimit (): boolean {
  try {
    return existsSync(PROC_FILE) && readFileSync(PROC_FILE).length > MAX_SECRET_FILE_BYTES
  } catch {
    return false
  }
}

test('a file whose stat size is 0 but whose content is over 64 KiB is refused (the limit counts bytes read)', { skip: procFileOverLimit() ? false : `${PROC_FILE} is not readable or not over 64 KiB here` }, async (t) => {
  const dir = t.testdir({})
  const file = join(dir, 'g.json')
  writeFileSync(file, JSON.stringify({ auth_middleware: { bearer: { ci: { token: { $file: PROC_FILE } } } } }))
  const outcome = await loadOutcome(file)
  t.match(outcome, { code: 'GATEHOUSE_CORE_CONFIG_SECRET', message: `${file}: auth_middleware.bearer.ci.token: file ${PROC_FILE} is larger than 65536 bytes` })
})

test('exactly 64 KiB is read; one byte more is refused', async (t) => {
  const dir = t.testdir({ 'max.txt': 'x'.repeat(MAX_SECRET_FILE_BYTES), 'over.txt': 'x'.repeat(MAX_SECRET_FILE_BYTES + 1) })
  const max = await readEnvironmentValue('T', { env: { T_FILE: 'max.txt' }, dir }, 'T')
  t.equal(max?.length, MAX_SECRET_FILE_BYTES)
  const over = await readEnvironmentValue('T', { env: { T_FILE: 'over.txt' }, dir }, 'T').then(() => 'read', (err: unknown) => err as Error)
  t.match(over, { code: 'GATEHOUSE_CORE_CONFIG_SECRET', message: 'T: file over.txt (from T_FILE) is larger than 65536 bytes' })
})
