import { test } from 'tap'
import type { FastifyBaseLogger } from 'fastify'
import pino from 'pino'
import { AppServer, RoutedApplication, route } from '@fastify-gatehouse/server'
import { basic, hs256 } from './helpers/credentials.js'

// Every credential the server sees, accepted or refused, through every way
// in, with Fastify's logger at trace and the access log showing headers and
// queries: none of them reaches a log line.
const SECRET = 'secrets-test-hs256-secret-of-32-bytes'
const API_KEY = `gak_00000000000000aa_${'Kq3'.repeat(14)}x`
const jwt = (claims: object): string => hs256(claims, SECRET)

class Api extends RoutedApplication {
  @route('/private', { authRule: 'ops' })
  async private () { return { ok: true } }

  @route('/boom')
  async boom (): Promise<never> { throw new Error('handler failed') }
}

test('no password, token, key, JWT or session id reaches the logs', async (t) => {
  const raw: string[] = []
  const logger = pino({ level: 'trace' }, { write: (line: string) => { raw.push(line) } }) as FastifyBaseLogger
  const server = new AppServer({
    primary: new Api(),
    logger,
    auth: {
      basic: { root: { password: 'root-Pa55word', tags: 'ops' } },
      bearer: { ci: { token: 'static-Bearer-T0ken', tags: 'ops' } },
      jwt: [{ name: 'main', secret: SECRET, algorithm: 'HS256', tagsClaim: 'tags' }]
    },
    users: { alice: { password: 'alice-Pa55word', tags: 'ops' } },
    tokens: { deployer: { key: API_KEY, tags: 'ops' } },
    adminPassword: 'keeper-Pa55word',
    login: true,
    middleware: { logging: { includeHeaders: true, includeQuery: true } }
  })
  t.teardown(() => server.close())

  const goodJwt = jwt({ sub: 'joe', tags: ['ops'], exp: Math.floor(Date.now() / 1000) + 60 })
  const expiredJwt = jwt({ sub: 'joe', tags: ['ops'], exp: Math.floor(Date.now() / 1000) - 60 })
  const tamperedJwt = goodJwt.slice(0, -6) + 'AAAAAA'
  const wrongKey = `gak_00000000000000aa_${'Zz9'.repeat(14)}y`
  const secrets = [
    'root-Pa55word', 'wrong-Pa55word', 'static-Bearer-T0ken', 'static-Bearer-Wr0ng', 'alice-Pa55word', 'keeper-Pa55word',
    API_KEY.slice(21), wrongKey.slice(21), goodJwt.split('.')[2]!, expiredJwt.split('.')[2]!, tamperedJwt.split('.')[2]!,
    Buffer.from('root:root-Pa55word').toString('base64'), Buffer.from('root:wrong-Pa55word').toString('base64'),
    'qs-Secret-T0ken'
  ]

  const expected: Array<[string, string | undefined, number]> = [
    ['Basic, accepted', basic('root', 'root-Pa55word'), 200],
    ['Basic, refused', basic('root', 'wrong-Pa55word'), 401],
    ['static bearer, accepted', 'Bearer static-Bearer-T0ken', 200],
    ['static bearer, refused', 'Bearer static-Bearer-Wr0ng', 401],
    ['JWT, accepted', `Bearer ${goodJwt}`, 200],
    ['JWT, expired', `Bearer ${expiredJwt}`, 401],
    ['JWT, tampered', `Bearer ${tamperedJwt}`, 401],
    ['API key, accepted', `Bearer ${API_KEY}`, 200],
    ['API key, wrong secret', `Bearer ${wrongKey}`, 401]
  ]
  for (const [what, authorization, status] of expected) {
    const res = await server.inject({ url: '/private?token=qs-Secret-T0ken', headers: { authorization } })
    t.equal(res.statusCode, status, what)
  }
  const boom = await server.inject({ url: '/boom', headers: { authorization: `Bearer ${goodJwt}` } })
  t.equal(boom.statusCode, 500, 'a failing handler (error logs carry the request)')

  const refused = await server.inject({ method: 'POST', url: '/_server/login', payload: { identity: 'alice', password: 'wrong-Pa55word' } })
  t.equal(refused.statusCode, 401)
  const login = await server.inject({ method: 'POST', url: '/_server/login', payload: { identity: 'alice', password: 'alice-Pa55word', return_session_id: true } })
  t.equal(login.statusCode, 200)
  const sessionId = login.json().session_id as string
  secrets.push(sessionId)
  t.equal((await server.inject({ url: '/private', headers: { cookie: `session_id=${sessionId}` } })).statusCode, 200, 'the session')

  const admin = await server.inject({ method: 'POST', url: '/_server/login', payload: { identity: 'admin', password: 'keeper-Pa55word', return_session_id: true } })
  const adminCookie = `session_id=${admin.json().session_id as string}`
  secrets.push(admin.json().session_id as string)
  const issued = await server.inject({ method: 'POST', url: '/_server/tokens', headers: { cookie: adminCookie }, payload: { label: 'robot', tags: ['ops'] } })
  t.equal(issued.statusCode, 201)
  secrets.push((issued.json().key as string).slice(21))
  const user = await server.inject({ method: 'POST', url: '/_server/users', headers: { cookie: adminCookie }, payload: { identity: 'bob', password: 'night-Pa55word' } })
  t.equal(user.statusCode, 201)
  secrets.push('night-Pa55word')
  const weak = await server.inject({ method: 'POST', url: '/_server/users', headers: { cookie: adminCookie }, payload: { identity: 'carol', password: 'carol-Pa55word' } })
  t.equal(weak.json().code, 'GATEHOUSE_SERVER_WEAK_PASSWORD', 'a refused password')
  secrets.push('carol-Pa55word')

  t.ok(raw.length > 40, `${raw.length} log lines written`)
  for (const scheme of ['Basic', 'Bearer']) {
    t.ok(raw.some((l) => l.includes(`"authorization":"${scheme} [REDACTED]"`)), `${scheme} authorization headers are logged, redacted`)
  }
  const all = raw.join('\n')
  for (const secret of secrets) t.notOk(all.includes(secret), `${secret.slice(0, 8)}… is not logged`)
})
