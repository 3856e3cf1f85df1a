// A page's form posted after the sign-in grew older than the route's
// `fresh` (the account page left open): the browser goes to confirm it's
// you and comes back to the page, instead of a plain-text 401. D-PAGE-16.
import { test } from 'tap'
import { Avatar } from '@fastify-gatehouse/core'
import { build } from './helpers/build.js'

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'
const FORM = 'application/x-www-form-urlencoded'

async function app (login: boolean) {
  return build({ login }, (app) => {
    app.addHook('onRequest', async (req) => {
      const user = req.headers['x-user']
      if (typeof user === 'string') req.scope.auth = new Avatar(user, { backend: 'test', authenticatedAt: Date.now() - 3_600_000 })
    })
    app.addContentTypeParser(FORM, { parseAs: 'string' }, (_req, body, done) => { done(null, body) })
    app.post('/_server/account/password', { fresh: 600 }, async () => 'changed')
    app.post('/settings', { fresh: 600 }, async () => 'saved')
  })
}

test('login on: a stale signed-in browser form gets 303 to confirm it is you, then back to its page', async (t) => {
  const { app: server } = await app(true)
  t.teardown(() => server.close())
  const post = (url: string, headers: Record<string, string>) => server.inject({ method: 'POST', url, headers, payload: 'current_password=x' })
  const account = await post('/_server/account/password', { accept: BROWSER, 'content-type': FORM, 'x-user': 'alice' })
  t.equal(account.statusCode, 303)
  t.equal(account.headers.location, '/_server/login_page?next=%2F_server%2Faccount&reauth=1', 'the account page\'s form: back to the account page')
  t.equal(account.headers['cache-control'], 'no-store')
  t.equal(account.body, '')
  const settings = await post('/settings', { accept: BROWSER, 'content-type': `${FORM}; charset=utf-8`, 'x-user': 'alice' })
  t.equal(settings.headers.location, '/_server/login_page?next=%2Fsettings&reauth=1')
})

test('everything else keeps the 401: JSON, fetch, anonymous, login off', async (t) => {
  const { app: server } = await app(true)
  t.teardown(() => server.close())
  const post = (headers: Record<string, string>) => server.inject({ method: 'POST', url: '/settings', headers, payload: headers['content-type'] === FORM ? 'a=1' : '{}' })
  const json = await post({ accept: 'application/json', 'content-type': 'application/json', 'x-user': 'alice' })
  t.equal(json.statusCode, 401)
  t.match(json.json(), { code: 'GATEHOUSE_CORE_REAUTHENTICATE', login_url: '/_server/login_page?next=%2Fsettings&reauth=1' })
  const both = await post({ accept: 'text/html, application/json', 'content-type': FORM, 'x-user': 'alice' })
  t.equal(both.statusCode, 401, 'a caller that takes JSON gets JSON')
  const anonymous = await post({ accept: BROWSER, 'content-type': FORM })
  t.equal(anonymous.statusCode, 401, 'an anonymous form is not asked to confirm anything')
  const { app: off } = await app(false)
  t.teardown(() => off.close())
  const plain = await off.inject({ method: 'POST', url: '/settings', headers: { accept: BROWSER, 'content-type': FORM, 'x-user': 'alice' }, payload: 'a=1' })
  t.equal(plain.statusCode, 401, 'login off: no login page to go to')
})
