// OWASP ASVS 5.0, V7.2 Fundamental Session Management Security: one test per requirement.
import { test } from 'tap'
import { MemorySessionStore, sessionKey } from '@fastify-gatehouse/session'
import { accountServer, cookieFrom, injectSignIn, NEW_PASSWORD } from '../helpers/account.js'

type Server = Awaited<ReturnType<typeof accountServer>>
const whoami = async (server: Server, cookie: string) => (await server.inject({ url: '/whoami', headers: { cookie } })).json().auth?.identity ?? null
const idOf = (cookie: string) => cookie.slice('session_id='.length)

test('ASVS 5.0 V7.2.1: every session token is verified by the server against its own store', async (t) => {
  const sessionStore = new MemorySessionStore()
  const server = await accountServer({ sessionStore })
  t.teardown(() => server.close())
  const cookie = await injectSignIn(server, 'alice', 'alice-pass')
  t.equal(await whoami(server, cookie), 'alice', 'a token the store knows')
  // The token carries nothing the client could forge: a well-formed id the store does not hold opens nothing.
  const forged = `session_id=${'A'.repeat(43)}`
  t.equal(await whoami(server, forged), null, 'a well-formed id unknown to the store')
  t.equal(sessionStore.get(sessionKey(idOf(cookie)))?.identity, 'alice', 'the store holds the record under the SHA-256 of the id, never the id')
  // Removed from the store behind the server's back: the token is worth nothing at once.
  sessionStore.destroy(sessionKey(idOf(cookie)))
  t.equal(await whoami(server, cookie), null, 'verified on each request, not trusted from the client')
})

test('ASVS 5.0 V7.2.2: session tokens are generated at each sign-in, never a static secret', async (t) => {
  const server = await accountServer()
  t.teardown(() => server.close())
  const first = await injectSignIn(server, 'alice', 'alice-pass')
  const second = await injectSignIn(server, 'alice', 'alice-pass')
  t.not(idOf(first), idOf(second), 'the same user, the same password: two different tokens')
  t.notOk(idOf(first).includes('alice') || idOf(first).includes(Buffer.from('alice').toString('base64url')), 'nothing of the identity in the token')
  t.equal(await whoami(server, first), 'alice')
  t.equal(await whoami(server, second), 'alice', 'each a session of its own')
})

test('ASVS 5.0 V7.2.3: session tokens are unique, 256 random bits (CSPRNG) each', async (t) => {
  const server = await accountServer()
  t.teardown(() => server.close())
  const ids: string[] = []
  for (let i = 0; i < 100; i++) ids.push(idOf(await injectSignIn(server, 'bob', 'bob-pass-1')))
  t.equal(new Set(ids).size, ids.length, 'no token repeats')
  for (const id of ids) t.equal(Buffer.from(id, 'base64url').length, 32, 'each token is 32 bytes (256 bits, at least 128 required)')
  // A fair source sets about half of all bits: of 25 600, 5 points off half is 16 standard deviations.
  let ones = 0
  for (const id of ids) for (const byte of Buffer.from(id, 'base64url')) for (let bit = 0; bit < 8; bit++) ones += (byte >> bit) & 1
  const share = ones / (ids.length * 256)
  t.ok(share > 0.45 && share < 0.55, `about half the bits set (${(share * 100).toFixed(2)} %)`)
})

test('ASVS 5.0 V7.2.4: a new token at every sign-in and re-authentication; the token before it ends', async (t) => {
  const server = await accountServer()
  t.teardown(() => server.close())
  // Ended means gone from the store, not merely anonymous or refused by a later check.
  const stored = async (cookie: string) => await server.fastify.sessionStore.get(sessionKey(idOf(cookie)))
  // A session that exists before the sign-in (fixation).
  const anonymous = cookieFrom((await server.inject({ method: 'POST', url: '/test/anonymous-write' })).headers['set-cookie'])!
  const signedIn = await server.inject({ method: 'POST', url: '/_server/login', headers: { cookie: anonymous }, payload: { identity: 'alice', password: 'alice-pass' } })
  const first = cookieFrom(signedIn.headers['set-cookie'])!
  t.not(first, anonymous, 'sign-in: a new token')
  t.equal(await stored(anonymous), null, 'the pre-sign-in token\'s session is gone from the store')
  t.equal(await whoami(server, first), 'alice')
  t.equal(await whoami(server, anonymous), null, 'the pre-sign-in token is not signed in')
  // Re-authentication from a signed-in session: signing in again.
  const again = await server.inject({ method: 'POST', url: '/_server/login', headers: { cookie: first }, payload: { identity: 'alice', password: 'alice-pass' } })
  const second = cookieFrom(again.headers['set-cookie'])!
  t.not(second, first, 'sign-in again: a new token')
  t.equal(await stored(first), null, 'the token before it: gone from the store')
  t.equal(await whoami(server, first), null, 'the token before it ended')
  // Re-authentication by the current password: the password change.
  const changed = await server.inject({ method: 'POST', url: '/_server/account/password', headers: { cookie: second }, payload: { current_password: 'alice-pass', new_password: NEW_PASSWORD } })
  t.equal(changed.statusCode, 200)
  const third = cookieFrom(changed.headers['set-cookie'])!
  t.not(third, second, 'a password change: a new token')
  t.equal(await stored(second), null, 'the token before it: gone from the store')
  t.equal(await whoami(server, second), null, 'the token before it ended')
  t.equal(await whoami(server, third), 'alice')
})
