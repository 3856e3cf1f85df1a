import { test } from 'tap'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { startDemo } from '../src/app.js'
import { CookieClient } from '../../../packages/server/test/helpers/cookie-client.js'

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
  let output = ''
  const ready = await new Promise<{ url: string, key: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`demo did not start: ${output}`)), 30_000)
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      const url = /ready at (http:\/\/127\.0\.0\.1:\d+)\//.exec(output)?.[1]
      const key = /API key \(shown once\): (gak_\S+)/.exec(output)?.[1]
      if (url !== undefined && key !== undefined) { clearTimeout(timer); resolve({ url, key }) }
    })
    child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString() })
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`demo exited ${code}: ${output}`)) })
  })
  const login = await fetch(`${ready.url}/_server/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ identity: 'admin', password: 'demo-admin-pass' }) })
  t.equal(login.status, 200)
  const cookie = login.headers.get('set-cookie')!.split(';')[0]!
  t.same(await (await fetch(`${ready.url}/admin`, { headers: { cookie } })).json(), { hello: 'admin', via: 'session' })
  t.same(await (await fetch(`${ready.url}/admin`, { headers: { authorization: `Bearer ${ready.key}` } })).json(), { hello: 'demo-ci', via: 'api_key' })
  t.equal((await fetch(`${ready.url}/admin`)).status, 403)
  t.match(output, /"msg":"-> GET \/admin 200/, 'access lines')
  t.notMatch(output, /demo-admin-pass/, 'the admin password is never logged')
  child.kill('SIGTERM')
  const [code] = await once(child, 'exit')
  t.equal(code, 0)
})

test('--with-local-idp: "Sign in with local" on the login page, through the provider\'s forms, signed in at next', async (t) => {
  const entry = fileURLToPath(new URL('../src/server.ts', import.meta.url))
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=gatehouse-src', entry, '--with-local-idp'], {
    env: { ...process.env, PORT: '0', HOST: undefined, GATEHOUSE_DEMO_DATA: t.testdir({}), GATEHOUSE_ADMIN_PASSWORD: 'demo-admin-pass' },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  t.teardown(() => { if (child.exitCode === null) child.kill('SIGKILL') })
  let output = ''
  const ready = await new Promise<{ url: string, issuer: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`demo did not start: ${output}`)), 30_000)
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      const url = /ready at (http:\/\/localhost:\d+)\//.exec(output)?.[1]
      const issuer = /local identity provider at (http:\/\/127\.0\.0\.1:\d+) /.exec(output)?.[1]
      if (url !== undefined && issuer !== undefined && output.includes('password: anything')) { clearTimeout(timer); resolve({ url, issuer }) }
    })
    child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString() })
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`demo exited ${code}: ${output}`)) })
  })
  t.match(output, `sign in with it: ${ready.url}/_server/login_page?next=/ → "Sign in with local"`)
  t.match(output, /user: alice {2}password: anything/, 'the test user is printed')

  const client = new CookieClient()
  const page = await client.request(`${ready.url}/_server/login_page?next=%2F`)
  t.equal(page.status, 200)
  const href = /<a [^>]*href="([^"]*oidc:local\/start[^"]*)"[^>]*>[^<]*Sign in with local/.exec(await page.text())?.[1]?.replaceAll('&amp;', '&')
  t.equal(href, '/_server/auth/oidc:local/start?next=%2F', 'the button on the login page')
  const start = await client.request(new URL(href!, ready.url).href)
  t.equal(start.status, 302)
  const authorize = new URL(start.headers.get('location')!)
  t.equal(authorize.origin, ready.issuer, 'to the local provider')
  t.equal(authorize.searchParams.get('redirect_uri'), `${ready.url}/_server/auth/oidc:local/callback`)
  // The provider's login form, then its consent form, then back.
  let { response, url } = await client.follow(authorize.href)
  t.match(await response.text(), /name="login"/, "the provider's login form")
  ;({ response, url } = await client.follow(url, { form: { prompt: 'login', login: 'alice', password: 'anything' } }))
  t.match(url, `${ready.issuer}/interaction/`, "the provider's consent form")
  const callback = (u: string): boolean => u.startsWith(`${ready.url}/_server/auth/oidc:local/callback?`)
  ;({ response, url } = await client.follow(url, { form: { prompt: 'consent' } }, callback))
  t.ok(callback(url), 'back at the callback')
  const back = await client.request(url)
  t.equal(back.status, 303)
  t.equal(back.headers.get('location'), '/')
  t.match(back.headers.get('set-cookie'), /^session_id=[^;]+;.*HttpOnly.*SameSite=Lax/i, 'a fresh session cookie, HttpOnly, SameSite=Lax')
  const home = await client.request(`${ready.url}/`, { accept: 'application/json' })
  t.same(((await home.json()) as { you: unknown }).you, { identity: 'alice', tags: ['oidc-user'], backend: 'session' }, 'signed in at next')
  const authorizationCode = new URL(url).searchParams.get('code')!
  t.ok(authorizationCode.length > 20)
  t.notOk(output.includes(authorizationCode), 'the authorization code is never logged')
  t.match(output, /<- GET \/_server\/auth\/oidc:local\/callback\?code=\[REDACTED\]&state=\[REDACTED\]/, 'the access line redacts it')
  t.notMatch(output, /client_secret|clientSecret/, 'nor the client secret')
  t.match(output, /Server listening at http:\/\/(127\.0\.0\.1|\[::1\]|localhost):/, 'on loopback only')
  child.kill('SIGTERM')
  const [code] = await once(child, 'exit')
  t.equal(code, 0)
})
