// The threat: another site makes the victim's browser send an unsafe
// request (a form POST, a fetch) that carries the victim's session cookie.
import { test } from 'tap'
import { build, HOST, REFUSED, SELF, signIn, TOKEN } from './helpers/build.js'

test('a cross-site form POST carrying the session cookie is refused with 403', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  const cookie = await signIn(app)
  const forged = [
    { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
    { origin: 'https://evil.example' },
    { 'sec-fetch-site': 'cross-site' },
    { origin: 'null' },
    { origin: 'null', 'sec-fetch-site': 'cross-site' },
    { origin: 'https://app.example.com' },
    { origin: 'http://app.example.com:8080' },
    { origin: 'http://sub.app.example.com', 'sec-fetch-site': 'same-site' }
  ]
  for (const headers of forged) {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'] as const) {
      const res = await app.inject({ method, url: '/account', headers: { host: HOST, cookie, 'content-type': 'application/x-www-form-urlencoded', ...headers }, payload: 'amount=1000' })
      t.equal(res.statusCode, 403, `${method} ${JSON.stringify(headers)}`)
      t.same(res.json(), REFUSED)
    }
  }
})

test('same-origin requests with the session cookie pass', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  const cookie = await signIn(app)
  const sameOrigin = [
    { origin: SELF, 'sec-fetch-site': 'same-origin' },
    { origin: SELF },
    { 'sec-fetch-site': 'same-origin' },
    { 'sec-fetch-site': 'none' },
    {}
  ]
  for (const headers of sameOrigin) {
    const res = await app.inject({ method: 'POST', url: '/account', headers: { host: HOST, cookie, ...headers } })
    t.equal(res.statusCode, 200, JSON.stringify(headers))
    t.same(res.json(), { method: 'POST', who: 'alice' })
  }
  const port = await app.inject({ method: 'POST', url: '/account', headers: { host: `${HOST}:80`, cookie, origin: SELF } })
  t.equal(port.statusCode, 200, 'a default port in Host is the same origin')
})

test('requests with an Authorization header are not affected', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  const cookie = await signIn(app)
  const res = await app.inject({ method: 'DELETE', url: '/account', headers: { host: HOST, cookie, authorization: `Bearer ${TOKEN}`, origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' } })
  t.equal(res.statusCode, 200)
  t.same(res.json(), { method: 'DELETE', who: 'app' }, 'the bearer caller, not the session')
})

test('safe methods are not affected', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  const cookie = await signIn(app)
  for (const method of ['GET', 'HEAD', 'OPTIONS'] as const) {
    const res = await app.inject({ method, url: '/account', headers: { host: HOST, cookie, origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' } })
    t.equal(res.statusCode, 200, method)
  }
})

test('requests without the session cookie are not affected (unless the route says always)', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  const foreign = { host: HOST, origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' }
  const anonymous = await app.inject({ method: 'POST', url: '/account', headers: { ...foreign, cookie: 'other=1; session_idx=2' } })
  t.equal(anonymous.statusCode, 403)
  t.equal(anonymous.json().code, 'GATEHOUSE_CORE_FORBIDDEN', 'refused by the route rule, not by csrf')
  const login = await app.inject({ method: 'POST', url: '/login-form', headers: foreign })
  t.equal(login.statusCode, 403, "csrf: 'always' checks without a cookie (login CSRF)")
  t.same(login.json(), REFUSED)
  const ok = await app.inject({ method: 'POST', url: '/login-form', headers: { host: HOST, origin: SELF } })
  t.same(ok.json(), { login: true })
})

test('allowOrigins: a listed origin passes, even when Sec-Fetch-Site says cross-site', async (t) => {
  const app = await build({ csrf: { allowOrigins: 'https://admin.example.org, https://tools.example.net' } })
  t.teardown(() => app.close())
  const cookie = await signIn(app)
  const ok = await app.inject({ method: 'PATCH', url: '/account', headers: { host: HOST, cookie, origin: 'https://tools.example.net', 'sec-fetch-site': 'cross-site' } })
  t.equal(ok.statusCode, 200)
  const other = await app.inject({ method: 'PATCH', url: '/account', headers: { host: HOST, cookie, origin: 'https://tools.example.net.evil.example', 'sec-fetch-site': 'cross-site' } })
  t.same(other.json(), REFUSED)
})

test('cookieName: the check follows a renamed session cookie', async (t) => {
  const app = await build({ cookieName: 'sid', csrf: { cookieName: 'sid' } })
  t.teardown(() => app.close())
  const cookie = await signIn(app, 'sid')
  const res = await app.inject({ method: 'POST', url: '/account', headers: { host: HOST, cookie: `theme=dark; ${cookie}`, origin: 'https://evil.example' } })
  t.same(res.json(), REFUSED)
})

test('trustProxy decides whether X-Forwarded-Proto/-Host make the own origin', async (t) => {
  const behind = await build({ trustProxy: true })
  t.teardown(() => behind.close())
  const cookie = await signIn(behind)
  const proxied = { host: 'internal:3000', 'x-forwarded-proto': 'https', 'x-forwarded-host': HOST, cookie }
  const ok = await behind.inject({ method: 'POST', url: '/account', headers: { ...proxied, origin: `https://${HOST}` } })
  t.equal(ok.statusCode, 200, 'behind a trusted proxy, the public origin is ours')

  const direct = await build()
  t.teardown(() => direct.close())
  const cookie2 = await signIn(direct)
  const spoofed = await direct.inject({ method: 'POST', url: '/account', headers: { host: HOST, 'x-forwarded-host': 'evil.example', cookie: cookie2, origin: 'http://evil.example' } })
  t.same(spoofed.json(), REFUSED, 'without trustProxy, X-Forwarded-Host is not believed')
})
