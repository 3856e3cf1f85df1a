// Secrets of `gatehouse serve --config` come from the environment or a file
// (DESIGN §11): `!env NAME` (or NAME_FILE), `!file PATH`, and
// $GATEHOUSE_ADMIN_PASSWORD_FILE / $GATEHOUSE_DATABASE_URL_FILE for the
// CLI's own variables. A missing one stops the boot naming the key path and
// the variable or file, never the value. D-CONFIG-07, D-CONFIG-08, D-CONFIG-10.
import { test } from 'tap'
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { collect, stopChild, waitForOutput } from '../../../test-helpers/child.js'
import { readConfig } from '../src/cli/config-file.js'
import { gatehouse } from './helpers/cli.js'

const FIXTURE = fileURLToPath(new URL('./fixtures/gatehouse.ts', import.meta.url))
const APP = fileURLToPath(new URL('./fixtures/shop-app.ts', import.meta.url))

const ENV_TOKEN = 'env-Token.7x~9+/Qa=='
const FILE_TOKEN = 'file-Token-3b2c1d'
// Basic passwords may hold anything but control characters: every YAML and shell special.
// eslint-disable-next-line no-template-curly-in-string -- a literal `${X}` in the password
const PASSWORD = 'p@ss: w0rd # "q" \'s\' $HOME ${X} {a: [b]} \\ é ✓'
const ADMIN_PASSWORD = 'gatekeeper-from-a-file-9Kq'

const CONFIG = `server:
  host: 127.0.0.1
auth_middleware:
  bearer:
    ci: { token: !env DEPLOY_TOKEN, tags: ops }
    cd: { token: !file ./secrets/cd_token, tags: ops }
  basic:
    bob: { password: !env BOB_PASSWORD, tags: ops }
`

// This process's environment without the variables the tests set.
function baseEnv (): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...process.env }
  for (const name of Object.keys(env)) if (name.startsWith('GATEHOUSE_') || name === 'DEPLOY_TOKEN' || name === 'BOB_PASSWORD') delete env[name]
  return env
}

test('gatehouse serve --config: tokens from the environment and from a file, over a real socket', async (t) => {
  const dir = t.testdir({
    'gatehouse.yaml': CONFIG,
    // A Docker or Kubernetes secret: a file, often with a trailing line break.
    secrets: { cd_token: `${FILE_TOKEN}\n`, admin: `${ADMIN_PASSWORD}\n` }
  })
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=gatehouse-src', FIXTURE, 'serve', '--config', 'gatehouse.yaml', '--app', APP, '--port', '0'], {
    cwd: dir,
    env: { ...baseEnv(), DEPLOY_TOKEN: ENV_TOKEN, BOB_PASSWORD: PASSWORD, GATEHOUSE_ADMIN_PASSWORD_FILE: 'secrets/admin' }
  })
  t.teardown(() => { if (child.exitCode === null) child.kill('SIGKILL') })
  const output = collect(child)
  const base = (await waitForOutput(child, output, /serving at (http:\/\/127\.0\.0\.1:\d+)\//, { what: 'the "serving at" line' }))[1]!
  const orders = async (authorization?: string): Promise<Response> => await fetch(`${base}/orders`, authorization === undefined ? {} : { headers: { authorization } })

  const fromEnv = await orders(`Bearer ${ENV_TOKEN}`)
  t.equal(fromEnv.status, 200, 'the token from $DEPLOY_TOKEN')
  t.same(await fromEnv.json(), { for: 'ci' })
  const fromFile = await orders(`Bearer ${FILE_TOKEN}`)
  t.equal(fromFile.status, 200, 'the token from the file, its trailing line break not part of it')
  t.same(await fromFile.json(), { for: 'cd' })
  const basic = await orders(`Basic ${Buffer.from(`bob:${PASSWORD}`).toString('base64')}`)
  t.equal(basic.status, 200, 'a password with special characters, exactly as in the variable')
  t.same(await basic.json(), { for: 'bob' })

  // A near miss of each, and the variable's name itself.
  for (const wrong of [`Bearer x${ENV_TOKEN}`, `Bearer ${FILE_TOKEN}0`, 'Bearer DEPLOY_TOKEN', `Basic ${Buffer.from(`bob:${PASSWORD}x`).toString('base64')}`]) {
    const refused = await orders(wrong)
    t.equal(refused.status, 401, `refused: ${wrong.slice(0, 12)}…`)
    t.match(refused.headers.get('www-authenticate'), /realm="gatehouse"/)
    t.match(await refused.json(), { code: /^GATEHOUSE_AUTH_/ })
  }
  t.equal((await orders()).status, 403, 'anonymous: the rule refuses')

  const admin = await fetch(`${base}/_server/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ identity: 'admin', password: ADMIN_PASSWORD }) })
  t.equal(admin.status, 200, 'the admin password from $GATEHOUSE_ADMIN_PASSWORD_FILE')
  t.equal(await stopChild(child, 'SIGTERM'), 0)
  const logged = output.stdout() + output.stderr()
  for (const secret of [ENV_TOKEN, FILE_TOKEN, PASSWORD, ADMIN_PASSWORD]) t.notOk(logged.includes(secret), 'no secret in the output')
})

test('a missing variable or file stops gatehouse serve: exit 1, one line naming the key path and the variable or file', async (t) => {
  const SECRET = 'never-shown-4Kx9'
  const dir = t.testdir({ 'gatehouse.yaml': CONFIG, secrets: { admin: 'x' } })
  const path = join(dir, 'gatehouse.yaml')
  const cases: Array<[Record<string, string>, string]> = [
    [{ BOB_PASSWORD: SECRET }, `gatehouse: ${path}: auth_middleware.bearer.ci.token: environment variable DEPLOY_TOKEN is not set (nor DEPLOY_TOKEN_FILE, a file holding it)\n`],
    [{ DEPLOY_TOKEN: SECRET, BOB_PASSWORD: SECRET }, `gatehouse: ${path}: auth_middleware.bearer.cd.token: file ./secrets/cd_token does not exist\n`],
    [{ DEPLOY_TOKEN: SECRET, DEPLOY_TOKEN_FILE: 'secrets/admin' }, `gatehouse: ${path}: auth_middleware.bearer.ci.token: both DEPLOY_TOKEN and DEPLOY_TOKEN_FILE are set: set one\n`],
    [{ GATEHOUSE_ADMIN_PASSWORD_FILE: 'secrets/missing' }, 'gatehouse: $GATEHOUSE_ADMIN_PASSWORD: file secrets/missing (from GATEHOUSE_ADMIN_PASSWORD_FILE) does not exist\n'],
    [{ GATEHOUSE_ADMIN_PASSWORD: SECRET, GATEHOUSE_ADMIN_PASSWORD_FILE: 'secrets/admin' }, 'gatehouse: $GATEHOUSE_ADMIN_PASSWORD: both GATEHOUSE_ADMIN_PASSWORD and GATEHOUSE_ADMIN_PASSWORD_FILE are set: set one\n'],
    [{ GATEHOUSE_DATABASE_URL_FILE: 'secrets/nothing' }, 'gatehouse: $GATEHOUSE_DATABASE_URL: file secrets/nothing (from GATEHOUSE_DATABASE_URL_FILE) does not exist\n']
  ]
  for (const [env, stderr] of cases) {
    const run = await gatehouse(['serve', '--config', 'gatehouse.yaml', '--port', '0'], { cwd: dir, env, cleanEnv: true })
    t.equal(run.code, 1, Object.keys(env).join(' '))
    t.equal(run.stderr, stderr)
    t.notOk(run.stdout.includes(SECRET) || run.stderr.includes(SECRET), 'the value is never shown')
  }
})

test('store URLs and folders from the environment: the stores read from the file are the values', async (t) => {
  const dir = t.testdir({
    'gatehouse.yaml': `middleware:
  session:
    store: { redis: !env REDIS_URL }
server_app:
  store: !env STORE_DIR
  login:
    store: { postgres: !file ./secrets/lockout_url }
`,
    secrets: { lockout_url: 'postgres://gate:pa55@127.0.0.1:5432/app\n' }
  })
  const io = { stdin: new PassThrough(), stdout: new PassThrough(), stderr: new PassThrough(), cwd: dir, env: { REDIS_URL: 'redis://:r3dis-pw@127.0.0.1:6379/2', STORE_DIR: './data' } }
  const { stores } = await readConfig(io, 'gatehouse.yaml')
  t.match(stores.sessions, { kind: 'redis', url: 'redis://:r3dis-pw@127.0.0.1:6379/2' })
  t.match(stores.users, { kind: 'folder', dir: join(dir, 'data') })
  t.match(stores.lockout, { kind: 'postgres', url: 'postgres://gate:pa55@127.0.0.1:5432/app' })
  // The URL is checked like a literal one, naming the key and never the password.
  const bad = await readConfig({ ...io, env: { ...io.env, REDIS_URL: 'mysql://u:r3dis-pw@h/1' } }, 'gatehouse.yaml').then(() => undefined, (err: unknown) => err as Error)
  t.match(bad?.message, /middleware\.session\.store\.redis: /)
  t.notOk(bad?.message.includes('r3dis-pw'))
})
