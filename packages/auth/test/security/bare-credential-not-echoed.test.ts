// Issue 25 review, item 3: an Authorization value without a space (a token
// sent without its scheme) was taken as a scheme name and echoed: "The
// 9f86d081… scheme is not accepted here", in the body and the log line.
// A value is named as a scheme only when credentials follow it (D-AUTH-79).
import { test } from 'tap'
import Fastify, { type FastifyBaseLogger } from 'fastify'
import pino from 'pino'
import { middlewareChain } from '@fastify-gatehouse/core'
import { components } from '../helpers/build.js'

const SECRET = '9f86d081884c7d659a2feaa0c55ad015'

async function app (auth: boolean) {
  const lines: string[] = []
  const logger = pino({ level: 'trace' }, { write: (line: string) => { lines.push(line) } })
  const server = Fastify({ loggerInstance: logger as FastifyBaseLogger })
  await middlewareChain(server, auth ? { authMiddleware: { tokens: { svc: { token: 'static-token-value-1', tags: 'ops' } } } } : {}, { components: auth ? components : [components[0]!] })
  server.get('/orders', { authRule: 'ops' }, async () => ['order'])
  await server.ready()
  return { server, lines }
}

test('a bare credential is named neither in the 403 (no auth on the route) nor in any log line', async (t) => {
  const { server, lines } = await app(false)
  t.teardown(() => server.close())
  for (const value of [SECRET, `  ${SECRET}  `, 'Basic', 'Aaaaaaaaaaaaaaaaaaaaa secret']) {
    const res = await server.inject({ url: '/orders', headers: { authorization: value } })
    t.equal(res.statusCode, 403, value)
    t.same(res.json(), {
      statusCode: 403,
      code: 'GATEHOUSE_CORE_SCHEME_NOT_ACCEPTED',
      error: 'Forbidden',
      message: 'The Authorization header is not accepted here: this route reads no Authorization header; sign in for a session cookie instead'
    }, `${value}: not named`)
  }
  const named = await server.inject({ url: '/orders', headers: { authorization: 'Token abc' } })
  t.match(named.json().message, /^The Token scheme is not accepted here/, 'a scheme followed by credentials is still named')
  t.ok(lines.length > 0, 'lines were logged')
  t.notOk(lines.some((line) => line.includes(SECRET)), 'the credential is in no log line, at any level')
})

test('with auth on the route, a bare credential is a 401 that does not name it, nor logged', async (t) => {
  const { server, lines } = await app(true)
  t.teardown(() => server.close())
  const res = await server.inject({ url: '/orders', headers: { authorization: SECRET } })
  t.equal(res.statusCode, 401)
  t.equal(res.json().code, 'GATEHOUSE_AUTH_BAD_HEADER', 'auth reads it as a header without credentials')
  t.equal(res.json().message, 'Malformed Authorization header: the Authorization header has no credentials')
  t.notOk(res.body.includes(SECRET))
  const named = await server.inject({ url: '/orders', headers: { authorization: 'Negotiate abc' } })
  t.match(named.json().message, /^The Negotiate scheme is not accepted here\./, 'a scheme with credentials is named')
  const long = await server.inject({ url: '/orders', headers: { authorization: `${'N'.repeat(21)} abc` } })
  t.match(long.json().message, /^This scheme is not accepted here\./, 'a scheme longer than 20 characters is not named')
  t.ok(lines.length > 0)
  t.notOk(lines.some((line) => line.includes(SECRET)), 'in no log line, at any level')
})
