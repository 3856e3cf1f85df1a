// OWASP ASVS 5.0, V7.5 Defenses Against Session Abuse: one test per requirement.
import { test } from 'tap'
import { accountServer, handleOf, injectSignIn, NEW_PASSWORD } from '../helpers/account.js'
import { fakeDateNow } from '../../../../test-helpers/clock.js'

type Server = Awaited<ReturnType<typeof accountServer>>
const whoami = async (server: Server, cookie: string) => (await server.inject({ url: '/whoami', headers: { cookie } })).json().auth?.identity ?? null
const signsIn = async (server: Server, password: string) => (await server.inject({ method: 'POST', url: '/_server/login', payload: { identity: 'alice', password } })).statusCode === 200

test('ASVS 5.0 V7.5.1: changing the password needs the current password and a recent sign-in', async (t) => {
  const clock = fakeDateNow(t)
  const server = await accountServer()
  t.teardown(() => server.close())
  const cookie = await injectSignIn(server, 'alice', 'alice-pass')
  const change = (body: object, headers = { cookie }) => server.inject({ method: 'POST', url: '/_server/account/password', headers, payload: body })
  t.equal((await change({ new_password: NEW_PASSWORD })).json().code, 'GATEHOUSE_SERVER_BAD_PASSWORD_CHANGE', 'without the current password: refused')
  t.equal((await change({ current_password: 'guess-guess', new_password: NEW_PASSWORD })).json().code, 'GATEHOUSE_SERVER_WRONG_PASSWORD', 'with a wrong one: refused')
  clock.advance(601_000)
  const stale = await change({ current_password: 'alice-pass', new_password: NEW_PASSWORD })
  t.equal(stale.statusCode, 401, 'a sign-in older than 10 minutes: refused even with the right password')
  t.equal(stale.json().code, 'GATEHOUSE_CORE_REAUTHENTICATE')
  t.match(stale.headers['www-authenticate'], /error="insufficient_user_authentication".*max_age="600"/)
  t.ok(await signsIn(server, 'alice-pass'), 'nothing changed')
  const fresh = await injectSignIn(server, 'alice', 'alice-pass')
  t.equal((await change({ current_password: 'alice-pass', new_password: NEW_PASSWORD }, { cookie: fresh })).statusCode, 200, 'signed in again: done')
  t.ok(await signsIn(server, NEW_PASSWORD))
})

test('ASVS 5.0 V7.5.2: users see their sessions and, having signed in recently, end any or all others', async (t) => {
  const clock = fakeDateNow(t)
  const server = await accountServer()
  t.teardown(() => server.close())
  const mine = await injectSignIn(server, 'alice', 'alice-pass')
  const others = [await injectSignIn(server, 'alice', 'alice-pass'), await injectSignIn(server, 'alice', 'alice-pass'), await injectSignIn(server, 'alice', 'alice-pass')]
  const listed = (await server.inject({ url: '/_server/account/sessions', headers: { cookie: mine } })).json().sessions
  t.equal(listed.length, 4, 'every active session is listed')
  t.equal(listed.filter((s: { current: boolean }) => s.current).length, 1, 'the current one marked')
  const target = await handleOf(server, others[0]!)
  clock.advance(601_000)
  t.equal((await server.inject({ url: '/_server/account/sessions', headers: { cookie: mine } })).statusCode, 200, 'viewing needs no recent sign-in')
  const stale = await server.inject({ method: 'DELETE', url: `/_server/account/sessions/${target}`, headers: { cookie: mine } })
  t.equal(stale.json().code, 'GATEHOUSE_CORE_REAUTHENTICATE', 'ending one needs a recent sign-in')
  t.equal((await server.inject({ method: 'POST', url: '/_server/account/sessions/revoke-others', headers: { cookie: mine } })).json().code, 'GATEHOUSE_CORE_REAUTHENTICATE', 'ending all others too')
  t.equal(await whoami(server, others[0]!), 'alice', 'nothing ended')
  const fresh = await injectSignIn(server, 'alice', 'alice-pass')
  t.same((await server.inject({ method: 'DELETE', url: `/_server/account/sessions/${target}`, headers: { cookie: fresh } })).json(), { status: 'ok' }, 'any one, signed in again')
  t.equal(await whoami(server, others[0]!), null)
  t.same((await server.inject({ method: 'POST', url: '/_server/account/sessions/revoke-others', headers: { cookie: fresh } })).json(), { status: 'ok', sessions_ended: 3 }, 'or all others (the three left: two old, and the stale one that asked)')
  for (const cookie of [mine, ...others]) t.equal(await whoami(server, cookie), null)
  t.equal(await whoami(server, fresh), 'alice')
})
