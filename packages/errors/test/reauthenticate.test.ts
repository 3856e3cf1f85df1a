// A route's `fresh` refused the caller (GATEHOUSE_CORE_REAUTHENTICATE): a
// signed-in browser is sent to sign in again (reauth=1); every other caller
// gets 401 with the RFC 9470 challenge, naming max_age.
import { test } from 'tap'
import { Avatar } from '@fastify-gatehouse/core'
import { build } from './helpers/build.js'

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'
const challenge = (realm: string, maxAge: number): string =>
  `Bearer realm="${realm}", error="insufficient_user_authentication", error_description="A more recent sign-in is required", max_age="${maxAge}"`

// `x-user` is the caller; `x-at` when they signed in (ms); absent: unknown, like an API key.
async function app (options: { login?: boolean, realm?: string, loginPage?: string }) {
  return build(options, (app) => {
    app.addHook('onRequest', async (req) => {
      const user = req.headers['x-user']
      const at = req.headers['x-at']
      if (typeof user === 'string') req.scope.auth = new Avatar(user, { backend: 'test', authenticatedAt: typeof at === 'string' ? Number(at) : null })
    })
    app.get('/security', { fresh: 600 }, async () => 'ok')
    app.post('/security', { fresh: 600 }, async () => 'ok')
    app.get('/admin/keys', { authRule: 'admin', fresh: 300 }, async () => 'ok')
  })
}

test('login on: a signed-in browser navigation goes to the login page with next and reauth=1', async (t) => {
  const { app: server } = await app({ login: true })
  t.teardown(() => server.close())
  const stale = { accept: BROWSER, 'x-user': 'alice', 'x-at': String(Date.now() - 3_600_000) }
  for (const [url, next] of [['/security', '/security'], ['/security?tab=keys&x=1', '/security?tab=keys&x=1']] as const) {
    for (const method of ['GET', 'HEAD'] as const) {
      const res = await server.inject({ method, url, headers: stale })
      t.equal(res.statusCode, 302, `${method} ${url}`)
      t.equal(res.headers.location, `/_server/login_page?next=${encodeURIComponent(next)}&reauth=1`, `${method} ${url}: next, reauth=1`)
      t.equal(res.headers['cache-control'], 'no-store')
      t.equal(res.body, '')
    }
  }
  const unknown = await server.inject({ url: '/security', headers: { accept: BROWSER, 'x-user': 'alice' } })
  t.equal(unknown.headers.location, '/_server/login_page?next=%2Fsecurity&reauth=1', 'a sign-in time unknown is stale too')
  const anonymous = await server.inject({ url: '/security', headers: { accept: BROWSER } })
  t.equal(anonymous.statusCode, 302)
  t.equal(anonymous.headers.location, '/_server/login_page?next=%2Fsecurity', 'an anonymous caller just signs in: no reauth')
  const fresh = await server.inject({ url: '/security', headers: { accept: BROWSER, 'x-user': 'alice', 'x-at': String(Date.now()) } })
  t.equal(fresh.statusCode, 200)
})

test('login on: an API caller gets 401, the RFC 9470 challenge and a JSON body with login_url', async (t) => {
  const { app: server } = await app({ login: true })
  t.teardown(() => server.close())
  for (const accept of [undefined, 'application/json', '*/*']) {
    const res = await server.inject({ url: '/security?tab=keys', headers: { 'x-user': 'alice', 'x-at': '0', ...(accept === undefined ? {} : { accept }) } })
    t.equal(res.statusCode, 401, `accept ${accept}`)
    t.equal(res.headers['www-authenticate'], challenge('gatehouse', 600))
    t.match(res.headers['content-type'], /^application\/json/)
    t.same(res.json(), {
      statusCode: 401,
      code: 'GATEHOUSE_CORE_REAUTHENTICATE',
      error: 'Unauthorized',
      message: 'This route needs a sign-in within the last 600 seconds; sign in again',
      max_age: 600,
      login_url: '/_server/login_page?next=%2Fsecurity%3Ftab%3Dkeys&reauth=1'
    })
  }
  const post = await server.inject({ method: 'POST', url: '/security', headers: { accept: BROWSER, 'x-user': 'alice' } })
  t.equal(post.statusCode, 401, 'a form POST is not a navigation to redirect')
  t.equal(post.headers['www-authenticate'], challenge('gatehouse', 600))
  t.equal(post.body, '401 Unauthorized: This route needs a sign-in within the last 600 seconds; sign in again\nSign in at /_server/login_page?next=%2Fsecurity&reauth=1')
  const anonymous = await server.inject({ url: '/security' })
  t.equal(anonymous.statusCode, 401)
  t.equal(anonymous.headers['www-authenticate'], challenge('gatehouse', 600))
  t.equal(anonymous.json().login_url, '/_server/login_page?next=%2Fsecurity')
})

test('the realm and the login page are the errors component\'s; max_age is the route\'s', async (t) => {
  const { app: server } = await app({ login: true, realm: 'shop "eu"', loginPage: '/signin' })
  t.teardown(() => server.close())
  const api = await server.inject({ url: '/admin/keys', headers: { 'x-user': 'root' } })
  t.equal(api.statusCode, 403, 'the authRule comes first')
  t.equal(api.json().code, 'GATEHOUSE_CORE_FORBIDDEN')
  const res = await server.inject({ url: '/security', headers: { 'x-user': 'root' } })
  t.equal(res.headers['www-authenticate'], challenge('shop \\"eu\\"', 600), 'the realm is quoted as RFC 9110 says')
  t.equal(res.json().login_url, '/signin?next=%2Fsecurity&reauth=1')
  const nav = await server.inject({ url: '/security', headers: { accept: BROWSER, 'x-user': 'root' } })
  t.equal(nav.headers.location, '/signin?next=%2Fsecurity&reauth=1')
})

test('login off: every caller, browsers included, gets the 401 with the challenge and no login_url', async (t) => {
  const { app: server } = await app({})
  t.teardown(() => server.close())
  for (const accept of [BROWSER, 'application/json', undefined]) {
    const res = await server.inject({ url: '/security', headers: { 'x-user': 'alice', ...(accept === undefined ? {} : { accept }) } })
    t.equal(res.statusCode, 401, `accept ${accept}`)
    t.equal(res.headers.location, undefined, 'no redirect')
    t.equal(res.headers['www-authenticate'], challenge('gatehouse', 600))
    if (accept === BROWSER) {
      t.equal(res.body, '401 Unauthorized: This route needs a sign-in within the last 600 seconds; sign in again')
    } else {
      t.same(res.json(), {
        statusCode: 401,
        code: 'GATEHOUSE_CORE_REAUTHENTICATE',
        error: 'Unauthorized',
        message: 'This route needs a sign-in within the last 600 seconds; sign in again',
        max_age: 600
      })
    }
  }
})
