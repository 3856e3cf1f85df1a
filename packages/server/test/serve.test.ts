import { test, type Test } from 'tap'
import { once } from 'node:events'
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { FileUserStore } from '@fastify-gatehouse/files'
import { collect, stopChild, waitForOutput } from '../../../test-helpers/child.js'

// Bad input to serve is tested in this process: serve-bad-input.test.ts.
const FIXTURE = fileURLToPath(new URL('./fixtures/gatehouse.ts', import.meta.url))
const APP = fileURLToPath(new URL('./fixtures/shop-app.ts', import.meta.url))
const tsx = ['--import', 'tsx', '--conditions=gatehouse-src', FIXTURE]

test('gatehouse serve --config --app: a server from a config file, stopped by SIGTERM', async (t) => {
  const dir = t.testdir({
    'gatehouse.yaml': `server:
  host: 127.0.0.1
middleware:
  logging: { include_query: false }
auth_middleware:
  bearer:
    ci: { token: ci-token, tags: ops }
server_app:
  store: ./data
  login: { max_attempts: 3, backoff: 10 }
`
  })
  const users = await FileUserStore.open(join(dir, 'data', 'users.json'), { scrypt: { N: 1024, r: 8, p: 1 } })
  await users.add('alice', { password: 'alice-pass', tags: 'ops' })
  const child = spawn(process.execPath, [...tsx, 'serve', '--config', 'gatehouse.yaml', '--app', APP, '--port', '0'], {
    cwd: dir, env: { ...process.env, GATEHOUSE_ADMIN_PASSWORD: 'gatekeeper-pass' }
  })
  t.teardown(() => { if (child.exitCode === null) child.kill('SIGKILL') })
  const output = collect(child)
  const base = (await waitForOutput(child, output, /serving at (http:\/\/127\.0\.0\.1:\d+)\//, { what: 'the "serving at" line' }))[1]!
  t.same(await (await fetch(`${base}/`)).json(), { shop: 'open' })
  t.equal((await fetch(`${base}/orders`)).status, 403)
  t.same(await (await fetch(`${base}/orders`, { headers: { authorization: 'Bearer ci-token' } })).json(), { for: 'ci' })
  const login = await fetch(`${base}/_server/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ identity: 'alice', password: 'alice-pass' }) })
  t.equal(login.status, 200)
  const cookie = login.headers.get('set-cookie')!.split(';')[0]!
  t.same(await (await fetch(`${base}/orders`, { headers: { cookie } })).json(), { for: 'alice' })
  const admin = await fetch(`${base}/_server/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ identity: 'admin', password: 'gatekeeper-pass' }) })
  const adminCookie = admin.headers.get('set-cookie')!.split(';')[0]!
  t.equal((await fetch(`${base}/_server/users`, { headers: { cookie: adminCookie } })).status, 200, 'the admin from $GATEHOUSE_ADMIN_PASSWORD')
  for (let i = 0; i < 3; i++) await fetch(`${base}/_server/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ identity: 'alice', password: 'x' }) })
  t.equal((await fetch(`${base}/_server/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ identity: 'alice', password: 'alice-pass' }) })).status, 429, 'server_app.login.max_attempts from the file')
  t.match(output.stdout(), /"name":"service\.access".*"msg":"-> GET \/orders 200/, 'the logging component from the file')
  t.equal(await stopChild(child, 'SIGTERM'), 0)
  t.match(output.stderr(), /stopping; waiting for requests in flight/)
})

// Starts `gatehouse serve` in `cwd` with `args`; resolves with its base URL once it listens.
async function serve (t: Test, cwd: string, args: string[], env: Record<string, string> = {}): Promise<{ base: string, stderr: () => string }> {
  const child = spawn(process.execPath, [...tsx, 'serve', ...args, '--port', '0'], { cwd, env: { ...process.env, ...env } })
  t.teardown(async () => {
    if (child.exitCode !== null) return
    child.kill('SIGTERM')
    await once(child, 'exit')
  })
  let out = ''
  let err = ''
  child.stderr.on('data', (c) => { err += c })
  const base = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not started: ${out}${err}`)), 60_000)
    child.stdout.on('data', (c) => {
      out += c
      const match = /serving at (http:\/\/127\.0\.0\.1:\d+)\//.exec(out)
      if (match !== null) { clearTimeout(timer); resolve(match[1]!) }
    })
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`exited ${code}: ${err}`)) })
  })
  return { base, stderr: () => err }
}

test('a relative server_app.store is relative to the config file, not the working directory (issue 14)', async (t) => {
  const dir = t.testdir({
    deploy: { 'gatehouse.yaml': 'server:\n  host: 127.0.0.1\nserver_app:\n  store: ./data\n' },
    data: {}
  })
  const users = await FileUserStore.open(join(dir, 'deploy', 'data', 'users.json'), { scrypt: { N: 1024, r: 8, p: 1 } })
  await users.add('alice', { password: 'alice-pass', tags: 'ops' })
  // Started from the parent folder, where ./data is another (empty) folder.
  const { base, stderr } = await serve(t, dir, ['--config', join('deploy', 'gatehouse.yaml')])
  const login = await fetch(`${base}/_server/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ identity: 'alice', password: 'alice-pass' }) })
  t.equal(login.status, 200, 'alice is found in deploy/data/users.json')
  t.same(await login.json(), { identity: 'alice', tags: ['ops'] })
  t.notMatch(stderr(), /no store at/, 'the store exists, so nothing is said about it')
})

test('a server_app.store that does not exist yet is started empty, and serve says where', async (t) => {
  const dir = t.testdir({ 'gatehouse.yaml': 'server:\n  host: 127.0.0.1\nserver_app:\n  store: ./fresh\n' })
  const { stderr } = await serve(t, dir, ['--config', 'gatehouse.yaml'], { GATEHOUSE_ADMIN_PASSWORD: 'gatekeeper-pass' })
  t.match(stderr(), `gatehouse: server_app.store: no store at ${join(dir, 'fresh')} yet; starting an empty one there\n`)
})
