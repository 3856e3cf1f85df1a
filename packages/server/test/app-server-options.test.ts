import { test } from 'tap'
import { AppServer, appServerDefaults, resolveServerOptions, type AppServerOptions } from '@fastify-gatehouse/server'
import { hashPassword } from '@fastify-gatehouse/auth'

// AppServer's options are checked once, when the server is made, and every
// bad one rejects ready() with a coded boot error naming it: none is
// silently ignored.

const INVALID = 'GATEHOUSE_SERVER_INVALID_OPTIONS'
const SCHEMA = 'GATEHOUSE_CORE_INVALID_OPTIONS'
const provider = { issuer: 'https://idp.example.com', clientId: 'c', clientSecret: 's' }

async function bootError (options: unknown): Promise<unknown> {
  const server = new AppServer(options as AppServerOptions)
  try {
    await server.ready()
    return undefined
  } catch (err) {
    return err
  } finally {
    await server.close()
  }
}

test('an unknown option is refused, naming it (it was ignored)', async (t) => {
  const err = await bootError({ loger: true })
  t.match(err, { code: INVALID, statusCode: 500, message: /^loger: unknown option \(known: primary, apps, login, .*adminPassword, passwordPolicy, database\)$/ })
  t.ok(err instanceof TypeError, 'a TypeError subclass')
  t.match(await bootError({ serverApp: { login: { maxAtempts: 3 } } }), { code: SCHEMA, message: 'serverApp.login.maxAtempts: unknown option' })
  t.match(await bootError({ serverApp: { oidc: {}, allowInsecureIssuer: true } }), { code: SCHEMA, message: 'serverApp.allowInsecureIssuer: unknown option' })
  // A seeded user's typo (`tag`) seeded a user without the tags it meant.
  t.match(await bootError({ logger: false, users: { bob: { password: 'quiet-harbour-9184', tag: 'ops' } } }), { code: INVALID, message: 'users.bob.tag: unknown key (known: password, passwordHash, tags)' })
})

test('a value of the wrong kind is refused, naming it', async (t) => {
  t.match(await bootError({ login: 'yes' }), { code: SCHEMA, message: 'login: expected boolean' })
  t.match(await bootError({ primary: {} }), { code: INVALID, message: 'primary: expected a RoutedApplication (an object with register(app))' })
  t.match(await bootError({ apps: { '/shop': 'shop' } }), { code: SCHEMA, message: /^apps\["\/shop"\]: expected object/ })
  t.match(await bootError(null), { code: INVALID, message: 'options: expected an object' })
})

test('session options given twice are refused (one was ignored)', async (t) => {
  t.match(await bootError({ session: { cookieName: 'a' }, middleware: { session: { cookieName: 'b' } } }),
    { code: INVALID, message: 'session: the session options are given as middleware.session too; give them in one place' })
})

test('the lockout options are checked with or without users', async (t) => {
  t.match(await bootError({ serverApp: { login: { maxAttempts: 2.5 } } }), { code: SCHEMA, message: 'serverApp.login.maxAttempts: expected integer' })
  t.match(await bootError({ users: { alice: { password: 'alice-pass' } }, serverApp: { login: { backoff: 0 } } }),
    { code: SCHEMA, message: 'serverApp.login.backoff: expected number to be greater than 0' })
  t.match(await bootError({ users: { alice: { password: 'alice-pass' } }, serverApp: { login: { store: {} } } }),
    { code: INVALID, message: /^serverApp\.login\.store: must be a LockoutStore/ })
})

test('the lockout options past what every lockout store holds are boot errors naming the option and its bound', async (t) => {
  const users = { alice: { password: 'alice-pass' } }
  for (const [login, message] of [
    [{ maxAttempts: 2 ** 31 }, 'serverApp.login.maxAttempts: expected integer to be less or equal to 1000000'],
    [{ maxAttempts: 1_000_001 }, 'serverApp.login.maxAttempts: expected integer to be less or equal to 1000000'],
    [{ addressMaxAttempts: 2 ** 40 }, 'serverApp.login.addressMaxAttempts: expected integer to be less or equal to 1000000'],
    [{ backoff: 86_401 }, 'serverApp.login.backoff: expected number to be less or equal to 86400'],
    [{ resetAfter: 1e300 }, 'serverApp.login.resetAfter: expected number to be less or equal to 31536000']
  ] as const) {
    t.match(await bootError({ users, serverApp: { login } }), { code: SCHEMA, statusCode: 500, message }, message)
  }
  t.equal(await bootError({ users, serverApp: { login: { maxAttempts: 1_000_000, backoff: 86_400, resetAfter: 31_536_000 } } }), undefined, 'the bounds themselves are allowed')
})

test('an OIDC provider is checked at boot: issuer, keys (a bad issuer was a 500 or 502 at the first sign-in)', async (t) => {
  const boot = (oidc: Record<string, unknown>, more: Record<string, unknown> = {}) => bootError({ externalUrl: 'https://app.example', serverApp: { oidc, ...more } })
  t.match(await boot({ g: { ...provider, issuer: 'idp.example.com' } }),
    { code: INVALID, message: 'serverApp.oidc.g.issuer: must be an absolute https URL (plain http needs allowInsecureIssuers), got "idp.example.com"' })
  t.match(await boot({ g: { ...provider, issuer: 'http://idp.example.com' } }), { code: INVALID, message: /^serverApp\.oidc\.g\.issuer: must be an absolute https URL/ })
  t.equal(await boot({ g: { ...provider, issuer: 'http://127.0.0.1:9' } }, { allowInsecureIssuers: true }), undefined, 'http with allowInsecureIssuers')
  t.match(await boot({ g: { ...provider, scope: 'openid' } }), { code: SCHEMA, message: 'serverApp.oidc.g.scope: unknown option' })
  t.match(await boot({ g: { ...provider, tags: 7 } }), { code: SCHEMA, message: /^serverApp\.oidc\.g\.tags: / })
  t.match(await bootError({ serverApp: { oidc: { g: provider } } }), { code: INVALID, message: /^externalUrl: OIDC provider "g" needs an absolute http\(s\) URL/ })
})

test('a bad issuer no longer reaches a request', async (t) => {
  // Before: ready() resolved and GET …/start answered 500 (new URL threw).
  const server = new AppServer({ externalUrl: 'https://app.example', serverApp: { oidc: { g: { ...provider, issuer: 'not a url' } } } })
  t.teardown(() => server.close())
  await t.rejects(server.inject('/_server/auth/oidc:g/start'), { code: INVALID })
})

test('resolved options: defaults applied, frozen', async (t) => {
  const resolved = resolveServerOptions({ debug: true })
  t.equal(resolved.debug, true)
  t.equal(resolved.login, appServerDefaults.login)
  t.same(resolved.server, appServerDefaults.server)
  t.ok(Object.isFrozen(resolved) && Object.isFrozen(appServerDefaults) && Object.isFrozen(appServerDefaults.serverApp))
  t.throws(() => resolveServerOptions({ user: {} } as never), { code: INVALID, message: /^user: unknown option/ }, 'an unknown key is refused, naming it')
})

test('a seeded user gives exactly one of password and passwordHash, and a hash that parses (issue 25, item 1)', async (t) => {
  const hash = await hashPassword('x-pass-1', { N: 1024, r: 8, p: 1 })
  t.match(await bootError({ logger: false, users: { bob: { password: 'x-pass-1', passwordHash: hash } } }),
    { code: INVALID, message: /users\.bob: give exactly one of password or passwordHash/ })
  t.match(await bootError({ logger: false, users: { bob: { tags: 'member' } } }), { code: INVALID, message: /users\.bob: give exactly one of password or passwordHash/ })
  t.match(await bootError({ logger: false, users: { bob: { passwordHash: 'scrypt$nope' } } }),
    { code: INVALID, message: /users\.bob: passwordHash: Invalid password hash: expected scrypt\$N,r,p\$salt\$hash \(make one with `gatehouse users hash`\)/ })
  t.match(await bootError({ logger: false, users: { bob: { password_hash: 'scrypt$x' } } }), { code: INVALID, message: /users\.bob\.password_hash: unknown key \(known: password, passwordHash, tags\)/ })
  t.equal(await bootError({ logger: false, users: { bob: { passwordHash: hash, tags: 'member' } } }), undefined, 'a good hash boots')
})
