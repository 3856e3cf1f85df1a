import { test } from 'tap'
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { startDemo } from '../src/app.js'
import { collect, stopChild, waitForText } from '../../../test-helpers/child.js'
import { eventually } from '../../../test-helpers/wait.js'

test('demo routes via inject', async (t) => {
  const demo = await startDemo({ dataDir: t.testdir({}), adminPassword: 'demo-admin-pass' })
  t.teardown(() => demo.close())
  const { server } = demo
  t.equal((await server.inject('/')).json().service, 'gatehouse demo')
  t.same((await server.inject('/boom')).json(), { statusCode: 500, error: 'Internal Server Error', message: 'Internal Server Error' })
  t.equal((await server.inject({ url: '/teapot', headers: { accept: 'text/html' } })).body, "418 I'm a Teapot: This server brews tea only")
  t.equal((await server.inject({ url: '/admin', headers: { accept: 'text/html' } })).headers.location, '/_server/login_page?next=%2Fadmin', 'browsers are sent to sign in')
  t.match(demo.apiKey, /^gak_/, 'a key is issued on first start')
  t.equal(demo.generatedAdminPassword, undefined, 'no password is generated when one is given')
})

test('a second start keeps the data and prints nothing secret again', async (t) => {
  const dataDir = t.testdir({})
  const first = await startDemo({ dataDir })
  t.match(first.generatedAdminPassword, /^[A-Za-z0-9_-]{16}$/, 'first start: a generated admin password')
  await first.close()
  const second = await startDemo({ dataDir })
  t.teardown(() => second.close())
  t.equal(second.generatedAdminPassword, undefined)
  t.equal(second.apiKey, undefined)
  const login = await second.server.inject({ method: 'POST', url: '/_server/login', payload: { identity: 'admin', password: first.generatedAdminPassword } })
  t.equal(login.statusCode, 200, 'the first password still works')
})

test('the demo entry point: log in, call the admin route, use the printed API key, stop on SIGTERM', async (t) => {
  const entry = fileURLToPath(new URL('../src/server.ts', import.meta.url))
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=gatehouse-src', entry], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', GATEHOUSE_DEMO_DATA: t.testdir({}), GATEHOUSE_ADMIN_PASSWORD: 'demo-admin-pass' },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  t.teardown(() => { if (child.exitCode === null) child.kill('SIGKILL') })
  const output = collect(child)
  const ready = await waitForText(child, output, (text) => {
    const url = /ready at (http:\/\/127\.0\.0\.1:\d+)\//.exec(text)?.[1]
    const key = /API key \(shown once\): (gak_\S+)/.exec(text)?.[1]
    return url !== undefined && key !== undefined ? { url, key } : undefined
  }, { what: 'the demo\'s URL and API key' })
  const login = await fetch(`${ready.url}/_server/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ identity: 'admin', password: 'demo-admin-pass' }) })
  t.equal(login.status, 200)
  const cookie = login.headers.get('set-cookie')!.split(';')[0]!
  t.same(await (await fetch(`${ready.url}/admin`, { headers: { cookie } })).json(), { hello: 'admin', via: 'session' })
  t.same(await (await fetch(`${ready.url}/admin`, { headers: { authorization: `Bearer ${ready.key}` } })).json(), { hello: 'demo-ci', via: 'api_key' })
  t.equal((await fetch(`${ready.url}/admin`)).status, 403)
  // The access line is written once the response is sent: polled.
  t.ok(await eventually(() => /"msg":"-> GET \/admin 200/.test(output.all())), 'access lines')
  t.equal(await stopChild(child, 'SIGTERM'), 0)
  t.notMatch(output.all(), /demo-admin-pass/, 'the admin password is never logged')
})
