// The demo with --with-local-idp, as a process: its own file, as a child
// start takes seconds on a busy machine (demo.test.ts has the rest).
import { test } from 'tap'
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { CookieClient } from '../../../packages/server/test/helpers/cookie-client.js'
import { collect, stopChild, waitForText } from '../../../test-helpers/child.js'

test('--with-local-idp: "Sign in with local" on the login page, through the provider\'s forms, signed in at next', async (t) => {
  const entry = fileURLToPath(new URL('../src/server.ts', import.meta.url))
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=gatehouse-src', entry, '--with-local-idp'], {
    env: { ...process.env, PORT: '0', HOST: undefined, GATEHOUSE_DEMO_DATA: t.testdir({}), GATEHOUSE_ADMIN_PASSWORD: 'demo-keeper-pass' },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  t.teardown(() => { if (child.exitCode === null) child.kill('SIGKILL') })
  const output = collect(child)
  const ready = await waitForText(child, output, (text) => {
    const url = /ready at (http:\/\/localhost:\d+)\//.exec(text)?.[1]
    const issuer = /local identity provider at (http:\/\/127\.0\.0\.1:\d+) /.exec(text)?.[1]
    return url !== undefined && issuer !== undefined && text.includes('password: anything') ? { url, issuer } : undefined
  }, { what: 'the demo\'s URL, issuer and test user' })
  t.match(output.all(), `sign in with it: ${ready.url}/_server/login_page?next=/ → "Sign in with local"`)
  t.match(output.all(), /user: alice {2}password: anything/, 'the test user is printed')

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
  // Everything it will print: stopped first.
  t.equal(await stopChild(child, 'SIGTERM'), 0)
  t.notOk(output.all().includes(authorizationCode), 'the authorization code is never logged')
  t.match(output.all(), /<- GET \/_server\/auth\/oidc:local\/callback\?code=\[REDACTED\]&state=\[REDACTED\]/, 'the access line redacts it')
  t.notMatch(output.all(), /client_secret|clientSecret/, 'nor the client secret')
  t.match(output.all(), /Server listening at http:\/\/(127\.0\.0\.1|\[::1\]|localhost):/, 'on loopback only')
})
