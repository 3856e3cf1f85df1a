import { test } from 'tap'
import { connect } from 'node:net'
import { Avatar, HttpError } from '@fastify-gatehouse/core'
import { loginUrl } from '@fastify-gatehouse/errors'
import { build } from './helpers/build.js'

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'

// Every path needs a credential; `x-user` stands in for one, `x-bad` for an
// invalid one carrying its own challenge; /admin needs a tag.
async function app (login: boolean) {
  return build({ login }, (app) => {
    app.addHook('onRequest', async (req) => {
      if (req.headers['x-bad'] !== undefined) {
        throw new HttpError(401, 'Invalid token', { headers: { 'www-authenticate': 'Bearer error="invalid_token"' } })
      }
      const user = req.headers['x-user']
      if (typeof user === 'string') req.scope.auth = new Avatar(user, { backend: 'test' })
      else if (!req.url.startsWith('/public') && !req.url.startsWith('/admin') && !req.url.startsWith('/_server')) throw new HttpError(401)
    })
    app.get('/*', async () => 'ok')
    app.post('/*', async () => 'ok')
    app.get('/admin', async (req) => { throw new HttpError(403, req.scope.auth === null ? 'Sign in first' : 'Not an admin') })
    app.get('/_server/login_page', async () => { throw new HttpError(401) })
  })
}

test('login on: a browser navigation is sent to the login page with next', async (t) => {
  const { app: server } = await app(true)
  t.teardown(() => server.close())
  const cases: Array<[string, string]> = [
    ['/orders', '/orders'],
    ['/orders?page=2&sort=desc', '/orders?page=2&sort=desc'],
    ['/caf%C3%A9?q=a%20b', '/caf%C3%A9?q=a%20b'],
    ['//evil.example', '/'],
    ['//evil.example/orders?x=1', '/'],
    ['/\\evil.example', '/'],
    ['/%2F%2Fevil.example', '/'],
    ['/%2f/evil.example', '/'],
    ['/%5Cevil.example', '/'],
    ['/%09/evil.example', '/']
  ]
  for (const [url, next] of cases) {
    for (const method of ['GET', 'HEAD'] as const) {
      const res = await server.inject({ method, url, headers: { accept: BROWSER } })
      t.equal(res.statusCode, 302, `${method} ${url}`)
      t.equal(res.headers.location, `/_server/login_page?next=${encodeURIComponent(next)}`, `${method} ${url} → next=${next}`)
      t.equal(res.headers['cache-control'], 'no-store')
    }
  }
})

test('login on: an API caller gets 401, a challenge and login_url', async (t) => {
  const { app: server } = await app(true)
  t.teardown(() => server.close())
  for (const accept of [undefined, 'application/json', '*/*', 'text/html;q=0, application/json']) {
    const res = await server.inject({ url: '/orders?page=2', headers: accept === undefined ? {} : { accept } })
    t.equal(res.statusCode, 401, `accept ${accept}`)
    t.equal(res.headers['www-authenticate'], 'Bearer realm="gatehouse"')
    t.same(res.json(), { statusCode: 401, error: 'Unauthorized', message: 'Unauthorized', login_url: '/_server/login_page?next=%2Forders%3Fpage%3D2' })
  }
  const jsonNav = await server.inject({ url: '/orders', headers: { accept: 'text/html, application/json' } })
  t.equal(jsonNav.statusCode, 302, 'a GET listing text/html is a navigation, whatever else it accepts')
  const post = await server.inject({ method: 'POST', url: '/orders', headers: { accept: BROWSER } })
  t.equal(post.statusCode, 401, 'a form POST is not a navigation to redirect')
  t.equal(post.body, '401 Unauthorized: Unauthorized\nSign in at /_server/login_page?next=%2Forders')
  const hostile = await server.inject({ url: '//evil.example' })
  t.equal(hostile.json().login_url, '/_server/login_page?next=%2F')
})

test('login on: an invalid credential keeps its own challenge', async (t) => {
  const { app: server } = await app(true)
  t.teardown(() => server.close())
  const api = await server.inject({ url: '/orders', headers: { 'x-bad': '1' } })
  t.equal(api.statusCode, 401)
  t.equal(api.headers['www-authenticate'], 'Bearer error="invalid_token"')
  t.equal(api.json().message, 'Invalid token')
})

test('login on: 403 redirects anonymous navigations only', async (t) => {
  const { app: server } = await app(true)
  t.teardown(() => server.close())
  const anonymous = await server.inject({ url: '/admin', headers: { accept: BROWSER } })
  t.equal(anonymous.statusCode, 302)
  t.equal(anonymous.headers.location, '/_server/login_page?next=%2Fadmin')
  const signedIn = await server.inject({ url: '/admin', headers: { accept: BROWSER, 'x-user': 'bob' } })
  t.equal(signedIn.statusCode, 403, 'a signed-in caller without the tag is not sent to log in again')
  t.notOk(signedIn.headers.location)
  t.match(signedIn.body, '<p>Not an admin</p>', 'it gets the 403 page (forbidden-page.test.ts)')
  const signedInApi = await server.inject({ url: '/admin', headers: { 'x-user': 'bob' } })
  t.same(signedInApi.json(), { statusCode: 403, error: 'Forbidden', message: 'Not an admin' })
  const api = await server.inject({ url: '/admin' })
  t.equal(api.statusCode, 403)
  t.same(api.json(), { statusCode: 403, error: 'Forbidden', message: 'Sign in first' })
  t.notOk(api.headers['www-authenticate'])
})

test('login on: the login page itself never redirects to itself', async (t) => {
  const { app: server } = await app(true)
  t.teardown(() => server.close())
  const res = await server.inject({ url: '/_server/login_page?next=/x', headers: { accept: BROWSER } })
  t.equal(res.statusCode, 401)
})

test('login off: the 401 passes through unchanged', async (t) => {
  const { app: server } = await app(false)
  t.teardown(() => server.close())
  const nav = await server.inject({ url: '/orders?page=2', headers: { accept: BROWSER } })
  t.equal(nav.statusCode, 401)
  t.equal(nav.body, '401 Unauthorized: Unauthorized')
  t.notOk(nav.headers.location)
  t.notOk(nav.headers['www-authenticate'], 'no challenge is invented')
  const api = await server.inject({ url: '/orders' })
  t.same(api.json(), { statusCode: 401, error: 'Unauthorized', message: 'Unauthorized' })
  const bad = await server.inject({ url: '/orders', headers: { 'x-bad': '1' } })
  t.equal(bad.headers['www-authenticate'], 'Bearer error="invalid_token"')
  const anonymous = await server.inject({ url: '/admin', headers: { accept: BROWSER } })
  t.equal(anonymous.statusCode, 403)
})

test('login on, over a real socket: hostile request targets land on /', async (t) => {
  const { app: server } = await app(true)
  t.teardown(() => server.close())
  await server.listen({ port: 0, host: '127.0.0.1' })
  const { port } = server.server.address() as { port: number }
  const targets = ['//evil.example/x', '/\\evil.example', 'http://evil.example/orders', '/%2F%2Fevil.example?a=1']
  for (const target of targets) {
    const head = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.write(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/html\r\nConnection: close\r\n\r\n`)
      })
      let data = ''
      socket.on('data', (chunk) => { data += chunk.toString('latin1') })
      socket.on('end', () => resolve(data.split('\r\n\r\n')[0] ?? ''))
      socket.on('error', reject)
    })
    t.match(head, /^HTTP\/1\.1 302 /, target)
    const location = /\r\nlocation: ([^\r]*)/i.exec(head)?.[1]
    t.ok(location === '/_server/login_page?next=%2F' || location === '/_server/login_page?next=%2Forders',
      `${target} → ${location}`)
  }
})

test('loginUrl validates next', async (t) => {
  t.equal(loginUrl('/login', '/a?b=c'), '/login?next=%2Fa%3Fb%3Dc')
  for (const hostile of ['https://evil', 'javascript:alert(1)', 'JavaScript%3Aalert(1)', '//evil', '/\\evil', '%2F%2Fevil', '/%252F%252Fevil?x']) {
    const url = loginUrl('/login', hostile)
    t.ok(url === '/login?next=%2F' || url === '/login?next=%2F%25252F%25252Fevil%3Fx', `${hostile} → ${url}`)
  }
})

test('loginPage and realm options', async (t) => {
  const { app: server } = await build({ login: true, loginPage: '/account/sign-in', realm: 'shop "eu"' }, (app) => {
    app.get('/cart', async () => { throw new HttpError(401) })
    app.get('/account/sign-in', async () => { throw new HttpError(401) })
  })
  t.teardown(() => server.close())
  const nav = await server.inject({ url: '/cart?x=1', headers: { accept: BROWSER } })
  t.equal(nav.statusCode, 302)
  t.equal(nav.headers.location, '/account/sign-in?next=%2Fcart%3Fx%3D1')
  const api = await server.inject('/cart')
  t.equal(api.headers['www-authenticate'], 'Bearer realm="shop \\"eu\\""', 'the realm is a quoted-string')
  t.equal(api.json().login_url, '/account/sign-in?next=%2Fcart')
  const self = await server.inject({ url: '/account/sign-in', headers: { accept: BROWSER } })
  t.equal(self.statusCode, 401, 'the configured login page does not redirect to itself')
})
