// OWASP ASVS 5.0, V7.3 Session Timeout: one test per requirement. Time is a
// fake clock (Date.now), moved by the test.
import { test } from 'tap'
import { accountServer, injectSignIn } from '../helpers/account.js'
import { fakeDateNow } from '../../../../test-helpers/clock.js'

type Server = Awaited<ReturnType<typeof accountServer>>
const whoami = async (server: Server, cookie: string) => (await server.inject({ url: '/whoami', headers: { cookie } })).json().auth?.identity ?? null

test('ASVS 5.0 V7.3.1: a session unused for idleTtl ends; using it moves the deadline; then only a new sign-in helps', async (t) => {
  const clock = fakeDateNow(t)
  const server = await accountServer({ idleTtl: 900 })
  t.teardown(() => server.close())
  const cookie = await injectSignIn(server, 'alice', 'alice-pass')
  // Used every 10 minutes for an hour: alive throughout (each use moves the idle deadline).
  for (let minute = 10; minute <= 60; minute += 10) {
    clock.advance(600_000)
    t.equal(await whoami(server, cookie), 'alice', `used at minute ${minute}`)
  }
  const listed = (await server.inject({ url: '/_server/account/sessions', headers: { cookie } })).json().sessions[0]
  t.equal(Date.parse(listed.expires_at) - Date.now(), 900_000, 'its owner sees the idle deadline: 15 minutes from this use')
  clock.advance(900_001)
  t.equal(await whoami(server, cookie), null, 'unused for 15 minutes: ended')
  const me = await server.inject({ url: '/_server/account/me', headers: { cookie } })
  t.equal(me.statusCode, 401, 'the account sees no one')
  t.equal(await whoami(server, await injectSignIn(server, 'alice', 'alice-pass')), 'alice', 'a new sign-in works')
})

test('ASVS 5.0 V7.3.2: a session ends absoluteTtl after its sign-in, however busy it is', async (t) => {
  const clock = fakeDateNow(t)
  const server = await accountServer({ idleTtl: 1800, absoluteTtl: 7200 })
  t.teardown(() => server.close())
  const cookie = await injectSignIn(server, 'alice', 'alice-pass')
  const signedIn = Date.now()
  const shown = (await server.inject({ url: '/_server/account/me', headers: { cookie } })).json().session.signed_in_at
  t.equal(Date.parse(shown), signedIn)
  // Used every 20 minutes, never idle for long.
  while (Date.now() + 1_200_000 < signedIn + 7_200_000) {
    clock.advance(1_200_000)
    t.equal(await whoami(server, cookie), 'alice', `used at ${(Date.now() - signedIn) / 60_000} min`)
  }
  const listed = (await server.inject({ url: '/_server/account/sessions', headers: { cookie } })).json().sessions[0]
  t.equal(Date.parse(listed.expires_at), signedIn + 7_200_000, 'near the end, the deadline is the absolute one')
  await clock.passTo(signedIn + 7_200_000)
  t.equal(await whoami(server, cookie), null, 'two hours after the sign-in: ended, despite the use')
  t.equal((await server.inject({ method: 'POST', url: '/test/anonymous-write', headers: { cookie } })).statusCode, 200)
  t.equal(await whoami(server, cookie), null, 'a write does not bring it back')
})
