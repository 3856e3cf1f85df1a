import { test } from 'tap'
import { join } from 'node:path'
import Fastify, { type FastifyBaseLogger } from 'fastify'
import pino from 'pino'
import { loadRecipe, middlewareChain } from '@fastify-gatehouse/core'
import { authPlugin, hashPassword } from '@fastify-gatehouse/auth'
import { basicHeader, components } from './helpers/build.js'

test('registered alone with app.register', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(authPlugin, { bearer: { svc: { token: 'svc-token', tags: 'ops' } } })
  app.get('/ops', { authRule: 'ops' }, async (req) => req.scope.auth)
  app.get('/open', async (req) => ({ caller: req.scope.auth }))
  t.same((await app.inject({ url: '/ops', headers: { authorization: 'Bearer svc-token' } })).json(), { identity: 'svc', tags: ['ops'], backend: 'bearer' })
  t.equal((await app.inject('/ops')).statusCode, 403)
  t.same((await app.inject('/open')).json(), { caller: null }, 'no Authorization header: anonymous')
  t.equal((await app.inject({ url: '/open', headers: { authorization: 'Bearer nope' } })).statusCode, 401)
})

test('unknown sections are ignored with a warning', async (t) => {
  const lines: Array<{ level: number, msg: string }> = []
  const app = Fastify({ loggerInstance: pino({}, { write: (l: string) => { lines.push(JSON.parse(l)) } }) as FastifyBaseLogger })
  t.teardown(() => app.close())
  await app.register(authPlugin, { basci: { alice: { password: 'x' } }, oauth2: {} } as never)
  await app.ready()
  t.same(lines.filter((l) => l.level === 40).map((l) => l.msg), ['auth: ignoring unknown section "basci"', 'auth: ignoring unknown section "oauth2"'])
})

test('auth_middleware from a config file (snake_case) arms auth', async (t) => {
  const hash = await hashPassword('pw', { N: 1024, r: 8, p: 1 })
  const dir = t.testdir({
    'gatehouse.yaml': `
auth_middleware:
  realm: shop
  basic:
    ops_user: { password_hash: "${hash}", tags: ops }
  jwt:
    - { name: main, secret: "a-very-long-shared-secret-of-32+bytes!", algorithm: HS256, identity_claim: email, clock_tolerance: 2 }
  basic_cache: { max: 10, ttl: 60 }
`
  })
  const recipe = await loadRecipe(join(dir, 'gatehouse.yaml'), { components })
  t.same(recipe.authMiddleware, {
    realm: 'shop',
    basic: { ops_user: { passwordHash: hash, tags: 'ops' } },
    jwt: [{ name: 'main', secret: 'a-very-long-shared-secret-of-32+bytes!', algorithm: 'HS256', identityClaim: 'email', clockTolerance: 2 }],
    basicCache: { max: 10, ttl: 60 }
  })
  const app = Fastify()
  t.teardown(() => app.close())
  await middlewareChain(app, recipe, { components })
  app.get('/ops', { authRule: 'ops' }, async (req) => req.scope.auth)
  const res = await app.inject({ url: '/ops', headers: { authorization: basicHeader('ops_user', 'pw') } })
  t.same(res.json(), { identity: 'ops_user', tags: ['ops'], backend: 'basic' })
  const bad = await app.inject({ url: '/ops', headers: { authorization: basicHeader('ops_user', 'x') } })
  t.equal(bad.headers['www-authenticate'], 'Basic realm="shop", charset="UTF-8"')

  const badDir = t.testdir({ 'g.yaml': 'auth_middleware:\n  jwt:\n    - { name: main, secret: x, algorithm: none }\n' })
  await t.rejects(loadRecipe(join(badDir, 'g.yaml'), { components }), { code: 'GATEHOUSE_CORE_INVALID_OPTIONS', message: /auth_middleware\.jwt\[0\]\.algorithm: / })
})
