// An OIDC sign-in whose identity claim equals a password user's name (or two
// providers issuing the same `sub`) is someone else: the account endpoints
// treat a caller's own sessions as those of its identity signed in the same
// way (D-SERVER on session owners). An administrator still sees them all.
import { test } from 'tap'
import { accountServer, ADMIN_PASSWORD, cookieFrom, handleOf, injectSignIn, NEW_PASSWORD } from './helpers/account.js'

async function sameNameServer () {
  return await accountServer({
    routes: (app) => {
      // What OidcMethod's callback does when the claim it takes is "alice".
      app.post('/test/oidc-alice', async (request) => {
        request.scope.session!.login('alice', ['guest'], { via: 'oidc:other' })
        return { ok: true }
      })
    }
  })
}

test('an OIDC "alice" neither sees nor ends the sessions of the password user alice, nor the reverse', async (t) => {
  const server = await sameNameServer()
  t.teardown(() => server.close())
  const password = await injectSignIn(server, 'alice', 'alice-pass')
  const oidc = cookieFrom((await server.inject({ method: 'POST', url: '/test/oidc-alice' })).headers['set-cookie'])!
  const passwordHandle = await handleOf(server, password)
  const oidcHandle = await handleOf(server, oidc)

  const listed = await server.inject({ url: '/_server/account/sessions', headers: { cookie: oidc } })
  t.equal(listed.statusCode, 200)
  t.same(listed.json().sessions.map((s: { handle: string }) => s.handle), [oidcHandle], 'the OIDC caller lists only its own session')
  t.equal(listed.headers['cache-control'], 'no-store')

  const refused = await server.inject({ method: 'DELETE', url: `/_server/account/sessions/${passwordHandle}`, headers: { cookie: oidc } })
  t.equal(refused.statusCode, 404)
  t.equal(refused.json().code, 'GATEHOUSE_SERVER_NOT_FOUND')
  const others = await server.inject({ method: 'POST', url: '/_server/account/sessions/revoke-others', headers: { cookie: oidc } })
  t.same(others.json(), { status: 'ok', sessions_ended: 0 }, 'revoke-others ends no session of the other alice')
  t.equal((await server.inject({ url: '/whoami', headers: { cookie: password } })).json().auth.identity, 'alice', 'the password session lives on')

  const fromPassword = await server.inject({ url: '/_server/account/sessions', headers: { cookie: password } })
  t.same(fromPassword.json().sessions.map((s: { handle: string }) => s.handle), [passwordHandle], 'the password user lists only theirs')
  const changed = await server.inject({ method: 'POST', url: '/_server/account/password', headers: { cookie: password }, payload: { current_password: 'alice-pass', new_password: NEW_PASSWORD } })
  t.equal(changed.statusCode, 200)
  t.same(changed.json(), { status: 'ok', sessions_ended: 0 }, 'a new password ends no OIDC session of the same name')
  t.equal((await server.inject({ url: '/whoami', headers: { cookie: oidc } })).json().auth.identity, 'alice', 'the OIDC session lives on')

  const admin = await injectSignIn(server, 'admin', ADMIN_PASSWORD)
  const all = await server.inject({ url: '/_server/users/alice/sessions', headers: { cookie: admin } })
  t.equal(all.json().sessions.length, 2, 'the administrator sees both')
  t.same(all.json().sessions.map((s: { via: string }) => s.via).sort(), ['oidc:other', 'password'])
})
