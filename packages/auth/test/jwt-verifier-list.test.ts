// Issue 14, item 8: the JWT verifiers have one shape, a list of verifiers
// each with a name, from the config file to AuthCore.
import { test } from 'tap'
import { join } from 'node:path'
import Fastify from 'fastify'
import { SignJWT } from 'jose'
import { loadRecipe, middlewareChain } from '@fastify-gatehouse/core'
import { AuthCore, authPlugin, type AuthOptions } from '@fastify-gatehouse/auth'
import { errorsPlugin } from '@fastify-gatehouse/errors'
import { build } from './helpers/build.js'

const components = [errorsPlugin, authPlugin]

const SECRET = 'a-very-long-shared-secret-of-32+bytes!'
const OTHER = 'another-very-long-shared-secret-32+bytes'
const jwt = [
  { name: 'idp', secret: SECRET, algorithm: 'HS256' as const, tags: 'idp' },
  { name: 'internal', secret: OTHER, algorithm: 'HS256' as const }
]

async function token (secret: string): Promise<string> {
  return await new SignJWT({ sub: 'alice' }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('1m').sign(new TextEncoder().encode(secret))
}

test('the same list arms AuthCore, the component, a recipe and a config file', async (t) => {
  const [idp, internal] = [await token(SECRET), await token(OTHER)]
  const core = await AuthCore.create({ jwt })
  t.match(core.authenticate(`Bearer ${internal}`), { identity: 'alice', backend: 'jwt:internal' }, 'AuthCore.create({ jwt })')

  const alone = Fastify()
  t.teardown(() => alone.close())
  await alone.register(authPlugin, { jwt })
  alone.get('/me', async (req) => req.scope.auth)
  t.same((await alone.inject({ url: '/me', headers: { authorization: `Bearer ${idp}` } })).json(), { identity: 'alice', tags: ['idp'], backend: 'jwt:idp' }, 'app.register(authPlugin, { jwt })')

  const chained = await build({ jwt })
  t.teardown(() => chained.close())
  t.equal((await chained.inject({ url: '/open', headers: { authorization: `Bearer ${internal}` } })).json().caller.backend, 'jwt:internal', 'middlewareChain(app, { authMiddleware: { jwt } })')

  const dir = t.testdir({
    'gatehouse.yaml': `auth_middleware:\n  jwt:\n    - name: idp\n      secret: "${SECRET}"\n      algorithm: HS256\n      tags: idp\n    - { name: internal, secret: "${OTHER}", algorithm: HS256 }\n`
  })
  const recipe = await loadRecipe(join(dir, 'gatehouse.yaml'), { components })
  t.same(recipe.authMiddleware, { jwt }, 'the file form is the list, keys in camelCase')
  const fromFile = Fastify()
  t.teardown(() => fromFile.close())
  await middlewareChain(fromFile, recipe, { components })
  fromFile.get('/me', async (req) => req.scope.auth)
  t.equal((await fromFile.inject({ url: '/me', headers: { authorization: `Bearer ${idp}` } })).json().backend, 'jwt:idp', 'loaded from a file')
})

test('the old map shape is a boot error naming jwt, wherever it is given', async (t) => {
  const map = { idp: { secret: SECRET, algorithm: 'HS256' } } as unknown as AuthOptions['jwt']
  await t.rejects(AuthCore.create({ jwt: map }), { code: 'GATEHOUSE_AUTH_INVALID_CONFIG', message: /^jwt: must be a list of verifiers, each with a name/ })
  const app = Fastify()
  t.teardown(() => app.close())
  await t.rejects(async () => { await app.register(authPlugin, { jwt: map }).ready() }, { code: 'GATEHOUSE_CORE_INVALID_OPTIONS', message: /jwt: expected array/ })
  const dir = t.testdir({ 'g.yaml': `auth_middleware:\n  jwt:\n    idp: { secret: "${SECRET}", algorithm: HS256 }\n` })
  await t.rejects(loadRecipe(join(dir, 'g.yaml'), { components }), { code: 'GATEHOUSE_CORE_INVALID_OPTIONS', message: /auth_middleware\.jwt: expected array$/ })
})

test('every verifier is named, once', async (t) => {
  const unnamed = [{ secret: SECRET, algorithm: 'HS256' }] as unknown as AuthOptions['jwt']
  await t.rejects(AuthCore.create({ jwt: unnamed }), { code: 'GATEHOUSE_AUTH_INVALID_CONFIG', message: /^jwt\[0\]\.name: is required/ })
  await t.rejects(AuthCore.create({ jwt: [{ name: 'a b', secret: SECRET, algorithm: 'HS256' }] }), { code: 'GATEHOUSE_AUTH_INVALID_CONFIG', message: /^jwt\[0\]\.name: / })
  const twice = [jwt[0]!, { ...jwt[1]!, name: 'idp' }]
  await t.rejects(AuthCore.create({ jwt: twice }), { code: 'GATEHOUSE_AUTH_INVALID_CONFIG', message: 'jwt[1].name: "idp" names two verifiers' })
  const app = Fastify()
  t.teardown(() => app.close())
  await t.rejects(async () => { await app.register(authPlugin, { jwt: twice }).ready() }, { code: 'GATEHOUSE_AUTH_INVALID_CONFIG', message: 'jwt[1].name: "idp" names two verifiers' })
  const dir = t.testdir({ 'g.yaml': `auth_middleware:\n  jwt:\n    - { secret: "${SECRET}", algorithm: HS256 }\n` })
  await t.rejects(loadRecipe(join(dir, 'g.yaml'), { components }), { code: 'GATEHOUSE_CORE_INVALID_OPTIONS', message: /auth_middleware\.jwt\[0\]\.name: is required$/ })
})
