import { test } from 'tap'
import { build, sessionCookie } from './helpers/build.js'

// DESIGN §2: a valid Authorization credential wins; an invalid one is a 401
// with no fallback to the session; without a header the session's identity
// is the caller; with neither, the caller is anonymous.
const auth = { bearer: { svc: { token: 'svc-token', tags: 'member,service' } } }

async function signedIn (app: Awaited<ReturnType<typeof build>>) {
  const res = await app.inject({ method: 'POST', url: '/login', payload: { identity: 'alice', tags: 'member' } })
  return `session_id=${sessionCookie(res)!}`
}

test('precedence between the Authorization header and the session', async (t) => {
  const app = await build({}, auth)
  t.teardown(() => app.close())
  const cookie = await signedIn(app)

  const both = await app.inject({ url: '/whoami', headers: { cookie, authorization: 'Bearer svc-token' } })
  t.same(both.json().auth, { identity: 'svc', tags: ['member', 'service'], backend: 'bearer' }, 'a valid header beats the session')

  const invalid = await app.inject({ url: '/whoami', headers: { cookie, authorization: 'Bearer wrong' } })
  t.equal(invalid.statusCode, 401, 'an invalid header is a 401, no fallback to the session')
  t.equal(invalid.json().code, 'GATEHOUSE_AUTH_INVALID_TOKEN')

  // RFC 6750 §3.1: a malformed bearer request is a 400, still never the session's caller.
  for (const authorization of ['Bearer ', 'Bearer a b']) {
    const malformed = await app.inject({ url: '/whoami', headers: { cookie, authorization } })
    t.equal(malformed.statusCode, 400, `${JSON.stringify(authorization)}: 400, no fallback to the session`)
    t.equal(malformed.json().code, 'GATEHOUSE_AUTH_INVALID_REQUEST')
  }

  const session = await app.inject({ url: '/whoami', headers: { cookie } })
  t.same(session.json().auth, { identity: 'alice', tags: ['member'], backend: 'session' }, 'no header: the session identity')
  t.equal((await app.inject({ url: '/private', headers: { cookie } })).statusCode, 200, 'and rules see it')

  const nobody = await app.inject({ url: '/whoami' })
  t.same(nobody.json(), { auth: null }, 'no header, no session: anonymous')
})

test('with auth not configured the session identity still resolves', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  const cookie = await signedIn(app)
  t.same((await app.inject({ url: '/whoami', headers: { cookie } })).json().auth, { identity: 'alice', tags: ['member'], backend: 'session' })
  t.same((await app.inject({ url: '/private', headers: { cookie } })).json(), { hello: 'alice' })
  t.equal((await app.inject('/private')).statusCode, 403)
})
