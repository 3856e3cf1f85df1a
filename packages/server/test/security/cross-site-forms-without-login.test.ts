// Found in review (issue 16): with the default login: false, csrf was off,
// yet the `_server` app takes forms that act with the session cookie, and
// SameSite=Lax still sends it from a sibling site (another port of the same
// host, a subdomain). A page there could make a signed-in admin create a
// SUPERADMIN, or sign a user out everywhere. Now csrf is on whenever the
// session is, and the admin API takes no forms at all.
import { test } from 'tap'
import { ADMIN_PASSWORD, accountServer, injectSignIn } from '../helpers/account.js'

const sibling = { origin: 'http://127.0.0.1:1', 'sec-fetch-site': 'same-site' }
const form = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' }

test('login: false — a form posted from a sibling site is refused on the admin API, the account and sign-out', async (t) => {
  const server = await accountServer({ login: false })
  t.teardown(() => server.close())
  const admin = await injectSignIn(server, 'admin', ADMIN_PASSWORD)
  const alice = await injectSignIn(server, 'alice', 'alice-pass')

  const create = await server.inject({ method: 'POST', url: '/_server/users', headers: { ...form, ...sibling, cookie: admin }, payload: 'identity=mallory&password=quiet-harbour-9184&tags=SUPERADMIN' })
  t.equal(create.statusCode, 403)
  t.equal(create.json().code, 'GATEHOUSE_CSRF_CROSS_SITE')
  const users = await server.inject({ url: '/_server/users', headers: { cookie: admin } })
  t.notOk(users.json().users.some((u: { identity: string }) => u.identity === 'mallory'), 'no user was made')

  for (const url of ['/_server/account/sessions/revoke-others', '/_server/account/logout', '/_server/logout']) {
    const res = await server.inject({ method: 'POST', url, headers: { ...form, ...sibling, cookie: alice }, payload: '' })
    t.equal(res.statusCode, 403, url)
    t.equal(res.json().code, 'GATEHOUSE_CSRF_CROSS_SITE', url)
  }
  const signout = await server.inject({ method: 'POST', url: '/_server/users/alice/signout', headers: { ...form, ...sibling, cookie: admin }, payload: '' })
  t.equal(signout.statusCode, 403)
  t.equal((await server.inject({ url: '/whoami', headers: { cookie: alice } })).json().auth.identity, 'alice', 'alice is still signed in')
})

test('the admin API refuses form bodies even from its own site, and with csrf turned off', async (t) => {
  for (const csrfOff of [false, true]) {
    const server = await accountServer({ login: false, ...(csrfOff ? { middleware: { csrf: false } } : {}) })
    const admin = await injectSignIn(server, 'admin', ADMIN_PASSWORD)
    const create = await server.inject({ method: 'POST', url: '/_server/users', headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: admin }, payload: 'identity=mallory&password=quiet-harbour-9184' })
    t.equal(create.statusCode, 415, `csrf ${csrfOff ? 'off' : 'on'}`)
    t.equal(create.json().code, 'GATEHOUSE_SERVER_FORM_NOT_ACCEPTED')
    const json = await server.inject({ method: 'POST', url: '/_server/users', headers: { cookie: admin }, payload: { identity: 'mallory', password: 'quiet-harbour-9184' } })
    t.equal(json.statusCode, 201, 'JSON still works')
    await server.close()
  }
})
