// The threat: the JWT of auth's `jwtCookie` gives a request ambient authority
// as the session cookie does, so a cross-site form POST carrying it must be
// refused. Auth declares the cookie through core; csrf, registered before or
// after auth, checks requests carrying it.
import { test } from 'tap'
import { createHmac } from 'node:crypto'
import Fastify, { type FastifyInstance } from 'fastify'
import { fastifyCookie } from '@fastify/cookie'
import { middlewareChain } from '@fastify-gatehouse/core'
import { authPlugin } from '@fastify-gatehouse/auth'
import { csrfPlugin } from '@fastify-gatehouse/csrf'
import { components, HOST, REFUSED, SELF } from './helpers/build.js'

const SECRET = 'a-very-long-shared-secret-of-32+bytes!'
const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url')

function jwt (claims: object): string {
  const input = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ exp: Math.floor(Date.now() / 1000) + 600, ...claims })}`
  return `${input}.${createHmac('sha256', SECRET).update(input).digest('base64url')}`
}

const auth = { jwtCookie: 'access_token', jwt: [{ name: 'web', secret: SECRET, algorithm: 'HS256' as const, tagsClaim: 'tags' }] }

function routes (app: FastifyInstance): void {
  app.post('/transfer', { authRule: 'member' }, async (req) => ({ who: req.scope.auth?.identity }))
  app.post('/open', async (req) => ({ who: req.scope.auth?.identity ?? null }))
}

async function viaChain (): Promise<FastifyInstance> {
  const app = Fastify()
  // csrf (order 310) is registered before auth (400) declares its cookie.
  await middlewareChain(app, { middleware: { csrf: {} }, authMiddleware: auth }, { components })
  routes(app)
  await app.ready()
  return app
}

async function alone (): Promise<FastifyInstance> {
  const app = Fastify()
  // The app's own cookie plugin and error-less components, auth first.
  await app.register(fastifyCookie)
  await app.register(authPlugin, auth)
  await app.register(csrfPlugin, {})
  routes(app)
  await app.ready()
  return app
}

for (const [how, make] of [['through the chain', viaChain], ['registered alone, auth first, the app\'s @fastify/cookie', alone]] as const) {
  test(`a cross-site POST carrying the JWT cookie is refused (${how})`, async (t) => {
    const app = await make()
    t.teardown(() => app.close())
    const cookie = `access_token=${jwt({ sub: 'alice', tags: ['member'] })}`
    for (const headers of [{ origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' }, { origin: 'https://evil.example' }, { 'sec-fetch-site': 'same-site' }]) {
      for (const url of ['/transfer', '/open']) {
        const res = await app.inject({ method: 'POST', url, headers: { host: HOST, cookie, 'content-type': 'application/x-www-form-urlencoded', ...headers }, payload: 'amount=1000' })
        t.equal(res.statusCode, 403, `${url} ${JSON.stringify(headers)}`)
        if (make === viaChain) t.same(res.json(), REFUSED)
        else t.equal(res.json().code, 'GATEHOUSE_CSRF_CROSS_SITE')
      }
    }
    const spaced = await app.inject({ method: 'POST', url: '/transfer', headers: { host: HOST, cookie: `  ${cookie.replace('=', ' = ')}`, origin: 'https://evil.example' } })
    t.equal(spaced.statusCode, 403, 'a spelling auth reads is a spelling csrf sees')

    const same = await app.inject({ method: 'POST', url: '/transfer', headers: { host: HOST, cookie, origin: SELF, 'sec-fetch-site': 'same-origin' } })
    t.equal(same.statusCode, 200, 'same origin: the cookie authenticates')
    t.same(same.json(), { who: 'alice' })
    const without = await app.inject({ method: 'POST', url: '/open', headers: { host: HOST, origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' } })
    t.equal(without.statusCode, 200, 'no cookie: no ambient authority, not checked')
    t.same(without.json(), { who: null })
  })
}

test('with csrf registered, before or after auth, auth does not warn that its cookie is unchecked', async (t) => {
  for (const csrfFirst of [true, false]) {
    const lines: string[] = []
    const app = Fastify({ logger: { level: 'warn', stream: { write: (line: string) => { lines.push(line) } } } })
    await app.register(fastifyCookie)
    if (csrfFirst) await app.register(csrfPlugin, {})
    await app.register(authPlugin, auth)
    if (!csrfFirst) await app.register(csrfPlugin, {})
    await app.ready()
    t.teardown(() => app.close())
    t.same(lines.filter((l) => l.includes('jwtCookie')), [], csrfFirst ? 'csrf first' : 'csrf after auth')
  }
})
