import { test } from 'tap'
import { createHmac } from 'node:crypto'
import Fastify, { type FastifyBaseLogger, type FastifyRequest } from 'fastify'
import pino from 'pino'
import { Avatar, HttpError, middlewareChain } from '@fastify-gatehouse/core'
import { AuthCore, MemoryApiKeyStore, type AuthOptions } from '@fastify-gatehouse/auth'
import { build, components } from './helpers/build.js'

const SECRET = 'a-very-long-shared-secret-of-32+bytes!'
function hs256 (claims: Record<string, unknown>): string {
  const part = (v: unknown): string => Buffer.from(JSON.stringify(v)).toString('base64url')
  const input = `${part({ alg: 'HS256', typ: 'JWT' })}.${part(claims)}`
  return `${input}.${createHmac('sha256', SECRET).update(input).digest('base64url')}`
}

test('bearer: { auth } answers an Avatar, tags or null, sync or async, and is called on every request', async (t) => {
  const seen: string[] = []
  const auth = (token: string, request: FastifyRequest): Avatar | string | string[] | null | Promise<Avatar | null> => {
    seen.push(`${token}:${request.method}`)
    if (token === 'avatar-token') return new Avatar('deploy-bot', { tags: 'admin', backend: 'bearer:legacy' })
    if (token === 'tags-token') return ['admin', 'ops']
    if (token === 'async-token') return Promise.resolve(new Avatar('async-bot', { tags: 'reader', backend: 'bearer' }))
    return token === 'async-null' ? Promise.resolve(null) : null
  }
  const app = await build({ bearer: { auth } })
  t.teardown(() => app.close())
  const me = async (token: string): Promise<any> => await app.inject({ url: '/me', headers: { authorization: `Bearer ${token}` } })
  t.same((await me('avatar-token')).json(), { identity: 'deploy-bot', tags: ['admin'], backend: 'bearer:legacy' })
  t.same((await me('tags-token')).json(), { identity: 'bearer', tags: ['admin', 'ops'], backend: 'bearer' }, 'tags alone: identity bearer')
  t.same((await me('async-token')).json(), { identity: 'async-bot', tags: ['reader'], backend: 'bearer' })
  for (const token of ['nope', 'async-null']) {
    const res = await me(token)
    t.equal(res.statusCode, 401, token)
    t.equal(res.json().code, 'GATEHOUSE_AUTH_INVALID_TOKEN')
    t.equal(res.headers['www-authenticate'], 'Bearer realm="gatehouse", error="invalid_token", error_description="The token is not valid"')
  }
  const before = seen.length
  await me('tags-token')
  await me('tags-token')
  t.equal(seen.length, before + 2, 'never cached: the function is the source of truth, as with the peer')
  t.ok(seen.every((s) => s.endsWith(':GET')), 'the request is handed over')
})

test('bearer.auth beside JWT verifiers and API keys: gak_ keys go to the key store, a null falls through to the verifiers', async (t) => {
  const keys = new MemoryApiKeyStore()
  const { key } = await keys.issue({ label: 'ci', tags: 'admin' })
  const asked: string[] = []
  const app = await build({
    bearer: { auth: (token) => { asked.push(token); return token === 'opaque' ? 'admin' : null } },
    jwt: [{ name: 'main', secret: SECRET, algorithm: 'HS256', tagsClaim: 'tags' }],
    apiKeys: keys
  })
  t.teardown(() => app.close())
  const jwt = hs256({ sub: 'jo', tags: ['admin'], exp: Math.floor(Date.now() / 1000) + 600 })
  t.same((await app.inject({ url: '/me', headers: { authorization: `Bearer ${jwt}` } })).json(), { identity: 'jo', tags: ['admin'], backend: 'jwt:main' })
  t.same((await app.inject({ url: '/me', headers: { authorization: `Bearer ${key}` } })).json(), { identity: 'ci', tags: ['admin'], backend: 'api_key' })
  t.same((await app.inject({ url: '/me', headers: { authorization: 'Bearer opaque' } })).json(), { identity: 'bearer', tags: ['admin'], backend: 'bearer' })
  t.notOk(asked.includes(key), 'an API key never reaches the function')
  t.ok(asked.includes(jwt), 'the function is asked first, in the static map\'s place')
})

test('bearer.auth is asked before the JWT cache too: a JWT it refuses after being cached is refused', async (t) => {
  const denied = new Set<string>()
  let asked = 0
  const app = await build({
    bearer: {
      auth: (token) => {
        asked++
        if (denied.has(token)) throw new HttpError(401, 'Denied by the application', { code: 'APP_DENIED' })
        return null
      }
    },
    jwt: [{ name: 'main', secret: SECRET, algorithm: 'HS256', tagsClaim: 'tags' }]
  })
  t.teardown(() => app.close())
  const jwt = hs256({ sub: 'jo', tags: ['reader'], exp: Math.floor(Date.now() / 1000) + 600 })
  const me = async (): Promise<any> => await app.inject({ url: '/me', headers: { authorization: `Bearer ${jwt}` } })
  t.equal((await me()).statusCode, 200)
  t.equal((await me()).statusCode, 200, 'verified once, then from the JWT cache')
  t.equal(asked, 2, 'the function was asked on the cached request too')
  denied.add(jwt)
  const res = await me()
  t.equal(res.statusCode, 401, 'the function\'s refusal wins over the cached verification')
  t.equal(res.json().code, 'APP_DENIED')
})

test('a bearer.auth that throws: an HttpError keeps its status and code; anything else is a 500 logged without its message', async (t) => {
  const lines: string[] = []
  const app = Fastify({ loggerInstance: pino({}, { write: (l: string) => { lines.push(l) } }) as FastifyBaseLogger })
  t.teardown(() => app.close())
  await middlewareChain(app, {
    authMiddleware: {
      bearer: {
        auth: (token: string) => {
          if (token === 'banned') throw new HttpError(403, 'Banned', { code: 'APP_BANNED' })
          if (token === 'yes') return true as never
          throw new Error(`lookup failed for ${token}`)
        }
      }
    }
  }, { components })
  app.get('/me', { authRule: 'admin' }, async (req) => req.scope.auth)
  const banned = await app.inject({ url: '/me', headers: { authorization: 'Bearer banned' } })
  t.same([banned.statusCode, banned.json().code], [403, 'APP_BANNED'])
  const broken = await app.inject({ url: '/me', headers: { authorization: 'Bearer Sup3rSecretTok3n' } })
  t.equal(broken.statusCode, 500)
  t.match(lines.join('\n'), 'bearer.auth threw Error')
  t.notMatch(lines.join('\n'), 'lookup failed', 'never the thrown message (D-AUTH-63)')
  t.notMatch(lines.join('\n'), 'Sup3rSecretTok3n')
  const yes = await app.inject({ url: '/me', headers: { authorization: 'Bearer yes' } })
  t.equal(yes.statusCode, 500, 'true (the peer\'s answer) is refused: answer tags or an Avatar')
  t.match(lines.join('\n'), /bearer.auth answered true: expected an Avatar, tags/)
})

test('bearerType names the scheme of every bearer credential and of its challenges', async (t) => {
  const app = await build({ bearerType: 'Token', bearer: { ci: { token: 'ci-token', tags: 'admin' } }, jwt: [{ name: 'main', secret: SECRET, algorithm: 'HS256', tagsClaim: 'tags' }], challengeAnonymous: true })
  t.teardown(() => app.close())
  t.same((await app.inject({ url: '/me', headers: { authorization: 'Token ci-token' } })).json(), { identity: 'ci', tags: ['admin'], backend: 'bearer' })
  t.equal((await app.inject({ url: '/me', headers: { authorization: 'token ci-token' } })).statusCode, 200, 'any case by default')
  const jwt = hs256({ sub: 'jo', tags: ['admin'], exp: Math.floor(Date.now() / 1000) + 600 })
  t.equal((await app.inject({ url: '/me', headers: { authorization: `Token ${jwt}` } })).json().backend, 'jwt:main', 'JWTs come with that scheme too')
  const bearer = await app.inject({ url: '/me', headers: { authorization: 'Bearer ci-token' } })
  t.equal(bearer.statusCode, 401, 'the Bearer scheme is no longer accepted')
  t.equal(bearer.json().code, 'GATEHOUSE_AUTH_UNSUPPORTED_SCHEME')
  t.equal(bearer.headers['www-authenticate'], 'Token realm="gatehouse"')
  const wrong = await app.inject({ url: '/me', headers: { authorization: 'Token nope' } })
  t.equal(wrong.headers['www-authenticate'], 'Token realm="gatehouse", error="invalid_token", error_description="The token is not valid"')
  const malformed = await app.inject({ url: '/me', headers: { authorization: 'Token a b' } })
  t.equal(malformed.statusCode, 400, 'RFC 6750 §3.1 for the configured scheme')
  t.match(malformed.headers['www-authenticate'], /^Token realm="gatehouse", error="invalid_request"/)
  const anonymous = await app.inject('/me')
  t.same([anonymous.statusCode, anonymous.headers['www-authenticate'], anonymous.json().message], [401, 'Token realm="gatehouse"', 'Sign in with Token credentials'])
})

test('bearerCase: exact accepts the scheme only as written (RFC 6750, the peer\'s specCompliance)', async (t) => {
  const app = await build({ bearerCase: 'exact', bearer: { ci: { token: 'ci-token', tags: 'admin' } } })
  t.teardown(() => app.close())
  t.equal((await app.inject({ url: '/me', headers: { authorization: 'Bearer ci-token' } })).statusCode, 200)
  t.equal((await app.inject({ url: '/me', headers: { authorization: '  Bearer   ci-token ' } })).statusCode, 200, 'whitespace as RFC 9110 allows')
  for (const spelling of ['bearer', 'BEARER', 'BeArEr']) {
    const res = await app.inject({ url: '/me', headers: { authorization: `${spelling} ci-token` } })
    t.equal(res.statusCode, 401, spelling)
    t.same([res.json().code, res.json().message], ['GATEHOUSE_AUTH_UNSUPPORTED_SCHEME', 'The scheme must be written exactly Bearer'])
    t.equal(res.headers['www-authenticate'], 'Bearer realm="gatehouse"')
  }
  const relaxed = await build({ bearer: { ci: { token: 'ci-token', tags: 'admin' } } })
  t.teardown(() => relaxed.close())
  t.equal((await relaxed.inject({ url: '/me', headers: { authorization: 'bEaReR ci-token' } })).statusCode, 200, 'insensitive by default (RFC 9110 §11.1)')
})

test('bad bearer options are boot errors naming the option', async (t) => {
  const cases: Array<[AuthOptions, string, RegExp]> = [
    [{ bearerType: 'Bear er' }, 'bearerType', /^bearerType: must be an HTTP auth-scheme name/],
    [{ bearerType: '' }, 'bearerType', /^bearerType: must be an HTTP auth-scheme name/],
    [{ bearerType: 'basic' }, 'bearerType', /^bearerType: cannot be Basic/],
    [{ bearerCase: 'rfc6750' as never }, 'bearerCase', /^bearerCase: must be "insensitive" \(RFC 9110, the default\) or "exact"/],
    [{ bearer: { auth: 'check' } as never }, 'bearer.auth', /^bearer\.auth: must be a function \(token, request\)/],
    [{ bearer: { auth: () => null, ci: { token: 'x' } } as never }, 'mix', /^bearer: with auth \(a function\) it takes no other key, found "ci"/]
  ]
  for (const [options, what, message] of cases) {
    await t.rejects(AuthCore.create(options), { code: 'GATEHOUSE_AUTH_INVALID_CONFIG', message }, what)
  }
  const named = await AuthCore.create({ bearer: { auth: { token: 'auth-token', tags: 'x' } } as never })
  t.equal((await named.authenticate('Bearer auth-token')).identity, 'auth', 'a token named auth is an entry')
  for (const [options, message] of [
    [{ bearerType: 'Bear er' }, /authMiddleware\.bearerType: /],
    [{ bearerCase: 'rfc6750' }, /authMiddleware\.bearerCase: /]
  ] as const) {
    const app = Fastify()
    t.teardown(() => app.close())
    await t.rejects(middlewareChain(app, { authMiddleware: options }, { components }), { code: 'GATEHOUSE_CORE_INVALID_OPTIONS', message })
  }
})
