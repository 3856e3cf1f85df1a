// Issue 13, item 6: a `tags` claim from any JWT verifier granted any tag,
// SUPERADMIN included. Tokens now grant tags only through a configured
// claim (`tagsClaim`), limited by `allowedTags`, never SUPERADMIN unless
// `allowSuperadmin`; every tag is in the rule grammar's alphabet.
import { test } from 'tap'
import { createHmac } from 'node:crypto'
import { recipeFromConfig } from '@fastify-gatehouse/core'
import { AuthCore, authPlugin, type AuthOptions } from '@fastify-gatehouse/auth'
import { build } from '../helpers/build.js'

const SECRET = 'a-very-long-shared-secret-of-32+bytes!'
const nowS = () => Math.floor(Date.now() / 1000)

function hs256 (claims: object): string {
  const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url')
  const input = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ exp: nowS() + 60, ...claims })}`
  return `${input}.${createHmac('sha256', SECRET).update(input).digest('base64url')}`
}

async function app (verifier: Record<string, unknown> = {}) {
  const server = await build({ jwt: [{ name: 'main', secret: SECRET, algorithm: 'HS256', ...verifier }] } as AuthOptions, (a) => {
    a.get('/superadmin', { authRule: 'SUPERADMIN' }, async (req) => req.scope.auth)
  })
  const call = async (url: string, claims: object) => {
    const res = await server.inject({ url, headers: { authorization: `Bearer ${hs256(claims)}` } })
    return { status: res.statusCode, body: res.json(), challenge: res.headers['www-authenticate'] }
  }
  return { server, call }
}

test('by default a token grants no tags: tags:["SUPERADMIN","admin"] reaches neither route', async (t) => {
  const { server, call } = await app()
  t.teardown(() => server.close())
  const claims = { sub: 'mallory', tags: ['SUPERADMIN', 'admin'] }
  const open = await call('/open', claims)
  t.equal(open.status, 200)
  t.same(open.body.caller, { identity: 'mallory', tags: [], backend: 'jwt:main' }, 'authenticated, without the claimed tags')
  const superadmin = await call('/superadmin', claims)
  t.equal(superadmin.status, 403)
  t.equal(superadmin.body.code, 'GATEHOUSE_CORE_FORBIDDEN')
  t.equal((await call('/admin', claims)).status, 403)
  t.equal((await call('/open', { sub: 'x', tags: 42 })).status, 200, 'an unread claim is not checked either')
})

test('tagsClaim: the claim is read, SUPERADMIN is dropped unless allowSuperadmin', async (t) => {
  const { server, call } = await app({ tagsClaim: 'roles' })
  t.teardown(() => server.close())
  const claims = { sub: 'mallory', roles: 'admin, SUPERADMIN', tags: ['ops'] }
  t.same((await call('/open', claims)).body.caller.tags, ['admin'], 'roles read, SUPERADMIN dropped, the tags claim not read')
  t.equal((await call('/admin', claims)).status, 200)
  t.equal((await call('/superadmin', claims)).status, 403)

  const allowing = await app({ tagsClaim: 'roles', allowSuperadmin: true })
  t.teardown(() => allowing.server.close())
  t.equal((await allowing.call('/superadmin', claims)).status, 200, 'allowSuperadmin: true means it')
})

test('tagsClaim + allowedTags: only allowed tags are granted', async (t) => {
  const { server, call } = await app({ tagsClaim: 'tags', allowedTags: ['reader', 'ops'], tags: 'jwt' })
  t.teardown(() => server.close())
  const res = await call('/open', { sub: 'carol', tags: ['admin', 'ops', 'SUPERADMIN', 'reader', 'intern'] })
  t.equal(res.status, 200)
  t.same(res.body.caller.tags, ['jwt', 'ops', 'reader'], 'the verifier tags, then the allowed claimed tags in claim order')
  t.equal((await call('/admin', { sub: 'carol', tags: ['admin'] })).status, 403)
  t.equal((await call('/me', { sub: 'carol', tags: ['reader'] })).status, 200)
})

test('a claimed tag outside the rule alphabet: 401 invalid_token saying why, not quoting the token', async (t) => {
  const { server, call } = await app({ tagsClaim: 'tags' })
  t.teardown(() => server.close())
  const reason = 'The tags claim holds a tag with characters other than letters, digits and _ . : -'
  for (const tags of [['admin', 'ops|admin'], 'admin, a b', ['(admin)'], ['adm\u0131n'], ['x"\r\nSet-Cookie: a=b'], ['管理者']]) {
    const res = await call('/open', { sub: 'mallory', tags })
    t.equal(res.status, 401, JSON.stringify(tags))
    t.equal(res.body.code, 'GATEHOUSE_AUTH_INVALID_TOKEN')
    t.equal(res.body.message, reason)
    t.equal(res.challenge, `Bearer realm="gatehouse", error="invalid_token", error_description="${reason}"`)
  }
  const wrongType = await call('/open', { sub: 'mallory', tags: [1] })
  t.equal(wrongType.body.message, 'The tags claim must be a list or a comma-separated string')
})

test('tag options are checked at boot, naming the option', async (t) => {
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ tags: 'SUPERADMIN' }, 'jwt.v.tags: SUPERADMIN would be granted to every token of this verifier; set allowSuperadmin: true to mean it'],
    [{ tagsClaim: 'tags', allowedTags: ['ops', 'SUPERADMIN'] }, 'jwt.v.allowedTags: lists SUPERADMIN; set allowSuperadmin: true to let tokens grant it'],
    [{ allowedTags: ['ops'] }, 'jwt.v.allowedTags: limits the tags of tagsClaim; set tagsClaim too'],
    [{ tagsClaim: 'tags', allowedTags: 'ops, a b' }, 'jwt.v.allowedTags: tag "a b" is not allowed: tags use only letters, digits and _ . : -'],
    [{ tags: ['ok', 'a|b'] }, 'jwt.v.tags: tag "a|b" is not allowed: tags use only letters, digits and _ . : -'],
    [{ tagsClaim: '' }, 'jwt.v.tagsClaim: must be a claim name of printable ASCII characters'],
    [{ tagsClaim: 'rôles' }, 'jwt.v.tagsClaim: must be a claim name of printable ASCII characters'],
    [{ allowSuperadmin: 'yes' }, 'jwt.v.allowSuperadmin: must be true or false']
  ]
  for (const [options, message] of cases) {
    await t.rejects(AuthCore.create({ jwt: [{ name: 'v', secret: SECRET, algorithm: 'HS256', ...options } as never] }), { code: 'GATEHOUSE_AUTH_INVALID_CONFIG', message }, message)
  }
  await t.resolves(AuthCore.create({ jwt: [{ name: 'v', secret: SECRET, algorithm: 'HS256', tags: 'SUPERADMIN', allowSuperadmin: true }] }), 'SUPERADMIN as configuration, meant')
})

test('basic and bearer tags in options use the rule alphabet too', async (t) => {
  await t.rejects(AuthCore.create({ basic: { alice: { password: 'pw', tags: 'ops, night shift' } } }),
    { code: 'GATEHOUSE_AUTH_INVALID_CONFIG', message: 'basic.alice.tags: tag "night shift" is not allowed: tags use only letters, digits and _ . : -' })
  await t.rejects(AuthCore.create({ bearer: { ci: { token: 'ci-token', tags: ['deploy!'] } } }),
    { code: 'GATEHOUSE_AUTH_INVALID_CONFIG', message: 'bearer.ci.tags: tag "deploy!" is not allowed: tags use only letters, digits and _ . : -' })
})

test('config files: the verifier keys in snake_case, checked like the options', async (t) => {
  const verifier = (extra: object) => ({ auth_middleware: { jwt: [{ name: 'idp', secret: SECRET, algorithm: 'HS256', ...extra }] } })
  const recipe = recipeFromConfig(verifier({ tags_claim: 'roles', allowed_tags: ['ops'], allow_superadmin: false, require_exp: false, max_age: 600 }), { components: [authPlugin] })
  t.same(recipe.authMiddleware, { jwt: [{ name: 'idp', secret: SECRET, algorithm: 'HS256', tagsClaim: 'roles', allowedTags: ['ops'], allowSuperadmin: false, requireExp: false, maxAge: 600 }] })
  t.throws(() => recipeFromConfig(verifier({ max_age: '1h' }), { components: [authPlugin] }), { code: 'GATEHOUSE_CORE_INVALID_OPTIONS', message: 'auth_middleware.jwt[0].max_age: expected number' })
  t.throws(() => recipeFromConfig(verifier({ require_exp: 'no' }), { components: [authPlugin] }), { code: 'GATEHOUSE_CORE_INVALID_OPTIONS', message: /^auth_middleware\.jwt\[0\]\.require_exp: / })
  t.throws(() => recipeFromConfig(verifier({ tagsClaim: 'roles' }), { components: [authPlugin] }), { message: 'auth_middleware.jwt[0].tagsClaim: unknown option (config files use snake_case: tags_claim)' })
})
