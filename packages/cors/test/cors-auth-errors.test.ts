// Chain interplay: cors (300) runs before auth (400) and its headers survive
// every error the errors component (100) answers.
import { test } from 'tap'
import { build, corsHeaders, TOKEN } from './helpers/build.js'

const APP = 'https://app.example.com'
const ECHOED = { 'access-control-allow-origin': APP, 'access-control-allow-credentials': 'true' }

test('a preflight to a protected route is answered before auth: never 401/403', async (t) => {
  const app = await build({ allowOrigins: APP, allowCredentials: true }, { withAuth: true })
  t.teardown(() => app.close())
  const res = await app.inject({
    method: 'OPTIONS',
    url: '/private',
    headers: { origin: APP, 'access-control-request-method': 'DELETE', 'access-control-request-headers': 'authorization' }
  })
  t.equal(res.statusCode, 204)
  t.match(corsHeaders(res), { ...ECHOED, 'access-control-allow-headers': 'authorization' })
  // Even a broken Authorization header does not reach auth on a preflight.
  const odd = await app.inject({ method: 'OPTIONS', url: '/private', headers: { origin: APP, 'access-control-request-method': 'GET', authorization: 'Bearer nope' } })
  t.equal(odd.statusCode, 204)

  // A route with its own OPTIONS handler behind a rule: the plain OPTIONS
  // request is refused by the rule, the preflight never gets that far.
  const plain = await app.inject({ method: 'OPTIONS', url: '/guarded', headers: { origin: APP } })
  t.equal(plain.statusCode, 403, 'a plain OPTIONS meets the rule')
  t.equal(plain.json().code, 'GATEHOUSE_CORE_FORBIDDEN')
  const preflight = await app.inject({ method: 'OPTIONS', url: '/guarded', headers: { origin: APP, 'access-control-request-method': 'PUT' } })
  t.equal(preflight.statusCode, 204, 'the preflight is answered by cors, before the rule')
  t.equal(preflight.body, '')
  t.match(corsHeaders(preflight), { ...ECHOED, 'access-control-allow-methods': /PUT/ })
})

test('the actual request without credentials is still 403, and carries the CORS headers', async (t) => {
  const app = await build({ allowOrigins: APP, allowCredentials: true }, { withAuth: true })
  t.teardown(() => app.close())
  const res = await app.inject({ method: 'DELETE', url: '/private', headers: { origin: APP } })
  t.equal(res.statusCode, 403)
  t.same(res.json(), { statusCode: 403, code: 'GATEHOUSE_CORE_FORBIDDEN', error: 'Forbidden', message: 'Sign in with Bearer credentials' })
  t.same(corsHeaders(res), ECHOED, 'the browser can read why it failed')
  t.equal(res.headers.vary, 'Origin')
  const ok = await app.inject({ method: 'DELETE', url: '/private', headers: { origin: APP, authorization: `Bearer ${TOKEN}` } })
  t.equal(ok.statusCode, 200)
  t.same(ok.json(), { deleted: true })
  t.same(corsHeaders(ok), ECHOED)
})

test('error responses keep the CORS headers: 401, 404, 500', async (t) => {
  const app = await build({ allowOrigins: APP, allowCredentials: true, exposeHeaders: 'www-authenticate' }, { withAuth: true })
  t.teardown(() => app.close())
  const expected = { ...ECHOED, 'access-control-expose-headers': 'www-authenticate' }

  const unauthorized = await app.inject({ url: '/private', headers: { origin: APP, authorization: 'Bearer wrong-token' } })
  t.equal(unauthorized.statusCode, 401)
  t.equal(unauthorized.json().code, 'GATEHOUSE_AUTH_INVALID_TOKEN')
  t.match(unauthorized.headers['www-authenticate'], /^Bearer /)
  t.same(corsHeaders(unauthorized), expected, '401')

  const missing = await app.inject({ url: '/nowhere', headers: { origin: APP } })
  t.equal(missing.statusCode, 404)
  t.same(missing.json(), { statusCode: 404, code: 'GATEHOUSE_ERRORS_NOT_FOUND', error: 'Not Found', message: 'Route GET:/nowhere not found' })
  t.same(corsHeaders(missing), expected, '404')

  const failed = await app.inject({ url: '/boom', headers: { origin: APP } })
  t.equal(failed.statusCode, 500)
  t.same(failed.json(), { statusCode: 500, code: 'GATEHOUSE_ERRORS_INTERNAL', error: 'Internal Server Error', message: 'Internal Server Error' })
  t.same(corsHeaders(failed), expected, '500')
})

test('without auth configured, a rule route is 403 with CORS headers', async (t) => {
  const app = await build({ allowOrigins: APP, allowCredentials: true })
  t.teardown(() => app.close())
  const res = await app.inject({ url: '/private', headers: { origin: APP } })
  t.equal(res.statusCode, 403)
  t.same(corsHeaders(res), ECHOED)
})
