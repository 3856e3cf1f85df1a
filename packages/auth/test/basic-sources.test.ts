import { test } from 'tap'
import { join } from 'node:path'
import Fastify, { type FastifyBaseLogger, type FastifyRequest } from 'fastify'
import pino from 'pino'
import { Avatar, HttpError, loadRecipe, middlewareChain } from '@fastify-gatehouse/core'
import { AuthCore, MemoryLockoutStore, MemoryUserStore, type UserStore } from '@fastify-gatehouse/auth'
import { basicHeader, build, components } from './helpers/build.js'

const FAST = { N: 1024, r: 8, p: 1 }

async function storeWith (...users: Array<[string, string, string]>): Promise<MemoryUserStore> {
  const store = new MemoryUserStore({ scrypt: FAST })
  for (const [identity, password, tags] of users) await store.add(identity, { password, tags })
  return store
}

/** Counts a store's verify and standing calls. */
function counted (store: UserStore): { store: UserStore, verify: number, standing: number } {
  const counts = { store, verify: 0, standing: 0 }
  counts.store = new Proxy(store, {
    get (target, key) {
      const value = Reflect.get(target, key, target)
      if (key === 'verify') return (...args: [string, string]) => { counts.verify++; return target.verify(...args) }
      if (key === 'standing') return (identity: string) => { counts.standing++; return target.standing(identity) }
      return typeof value === 'function' ? value.bind(target) : value
    }
  })
  return counts
}

test('basic: { users: store } authenticates against any UserStore and caches the verified credential', async (t) => {
  const c = counted(await storeWith(['alice', 'wonderland-1', 'admin'], ['bob', 'builder-22', 'reader']))
  const app = await build({ basic: { users: c.store } })
  t.teardown(() => app.close())
  const alice = basicHeader('alice', 'wonderland-1')

  const first = await app.inject({ url: '/me', headers: { authorization: alice } })
  t.equal(first.statusCode, 200)
  t.same(first.json(), { identity: 'alice', tags: ['admin'], backend: 'basic' })
  t.equal(c.verify, 1, 'a miss verifies with the store')
  const again = await app.inject({ url: '/me', headers: { authorization: alice } })
  t.same(again.json(), { identity: 'alice', tags: ['admin'], backend: 'basic' })
  t.equal(c.verify, 1, 'a hit does not hash again')
  t.equal(c.standing, 1, 'a hit asks the store for the standing')

  const wrong = await app.inject({ url: '/me', headers: { authorization: basicHeader('alice', 'nope') } })
  t.equal(wrong.statusCode, 401)
  t.equal(wrong.json().code, 'GATEHOUSE_AUTH_INVALID_CREDENTIALS')
  t.equal(wrong.headers['www-authenticate'], 'Basic realm="gatehouse", charset="UTF-8"')
  const unknown = await app.inject({ url: '/me', headers: { authorization: basicHeader('carol', 'x') } })
  t.equal(unknown.statusCode, 401)
  t.equal(unknown.json().message, wrong.json().message, 'an unknown user is refused like a wrong password')
  const malformed = await app.inject({ url: '/me', headers: { authorization: 'Basic !!!!' } })
  t.equal(malformed.json().code, 'GATEHOUSE_AUTH_BAD_HEADER')
})

test('a cached store credential follows the user: disable, delete, new password, new tags', async (t) => {
  const store = await storeWith(['alice', 'wonderland-1', 'admin'], ['bob', 'builder-22', 'admin'])
  const app = await build({ basic: { users: store } })
  t.teardown(() => app.close())
  const call = async (user: string, password: string): Promise<{ status: number, body: any }> => {
    const res = await app.inject({ url: '/me', headers: { authorization: basicHeader(user, password) } })
    return { status: res.statusCode, body: res.json() }
  }
  t.equal((await call('alice', 'wonderland-1')).status, 200, 'cached')

  await store.setTags('alice', 'reader,ops')
  t.same((await call('alice', 'wonderland-1')).body, { identity: 'alice', tags: ['reader', 'ops'], backend: 'basic' }, 're-tagged: the current tags at once')
  await store.setTags('alice', 'nothing')
  t.equal((await call('alice', 'wonderland-1')).status, 403, 'tags that no longer satisfy the rule')
  await store.setTags('alice', 'admin')

  await store.setEnabled('alice', false)
  const disabled = await call('alice', 'wonderland-1')
  t.equal(disabled.status, 401, 'disabled: refused though cached')
  t.equal(disabled.body.code, 'GATEHOUSE_AUTH_INVALID_CREDENTIALS')
  await store.setEnabled('alice', true)
  t.equal((await call('alice', 'wonderland-1')).status, 200, 'enabled again: verified again')

  await store.setPassword('alice', 'looking-glass-2')
  t.equal((await call('alice', 'wonderland-1')).status, 401, 'the old password, cached, is refused once the password changed')
  t.equal((await call('alice', 'looking-glass-2')).status, 200, 'the new one works')

  t.equal((await call('bob', 'builder-22')).status, 200)
  await store.delete('bob')
  t.equal((await call('bob', 'builder-22')).status, 401, 'deleted: refused though cached')
  await store.add('bob', { password: 'builder-22', tags: 'admin' })
  t.equal((await call('bob', 'builder-22')).status, 200, 'a new user of that name verifies afresh')
})

test('a disabled user retrying costs a standing() each, never a password check: 40 at once are all 401, none 503', async (t) => {
  const c = counted(await storeWith(['alice', 'wonderland-1', 'admin']))
  const app = await build({ basic: { users: c.store } })
  t.teardown(() => app.close())
  const alice = basicHeader('alice', 'wonderland-1')
  t.equal((await app.inject({ url: '/me', headers: { authorization: alice } })).statusCode, 200)
  await (c.store as MemoryUserStore).setEnabled('alice', false)
  const answers = await Promise.all(Array.from({ length: 40 }, async () => await app.inject({ url: '/me', headers: { authorization: alice } })))
  t.same([...new Set(answers.map((r) => r.statusCode))], [401], 'all refused; none busy (basicConcurrency is 16)')
  t.same([...new Set(answers.map((r) => r.json().code))], ['GATEHOUSE_AUTH_INVALID_CREDENTIALS'])
  t.equal(c.verify, 1, 'no password was checked again')
  await (c.store as MemoryUserStore).setEnabled('alice', true)
  t.equal((await app.inject({ url: '/me', headers: { authorization: alice } })).statusCode, 200, 're-enabled: served again')
  t.equal(c.verify, 1)
})

test('basicCache applies to a store: max 0 verifies every time, ttl bounds a hit', async (t) => {
  const c = counted(await storeWith(['alice', 'wonderland-1', 'admin']))
  let now = 1_000_000
  const core = await AuthCore.create({ basic: { users: c.store }, basicCache: { max: 0 } })
  await core.authenticate(basicHeader('alice', 'wonderland-1'))
  await core.authenticate(basicHeader('alice', 'wonderland-1'))
  t.equal(c.verify, 2, 'no cache: verified each time')
  const c2 = counted(await storeWith(['alice', 'wonderland-1', 'admin']))
  const timed = await AuthCore.create({ basic: { users: c2.store }, basicCache: { max: 10, ttl: 60 }, now: () => now })
  await timed.authenticate(basicHeader('alice', 'wonderland-1'))
  now += 59_000
  await timed.authenticate(basicHeader('alice', 'wonderland-1'))
  t.equal(c2.verify, 1, 'within ttl: a hit')
  now += 2000
  const avatar = await timed.authenticate(basicHeader('alice', 'wonderland-1'))
  t.equal(c2.verify, 2, 'past ttl: verified again')
  t.equal(avatar.authenticatedAt, now, 'Basic is a sign-in on every request (D-AUTH-29)')
})

test('a store of yours that gives no stamp: nothing is cached, so a new password is never missed', async (t) => {
  const inner = await storeWith(['alice', 'wonderland-1', 'admin'])
  let verifies = 0
  let standings = 0
  // A JavaScript store breaking the UserStore contract: verify answers no stamp.
  const stampless = {
    verify: async (identity: string, password: string) => {
      verifies++
      const verified = await inner.verify(identity, password)
      return verified === null ? null : { identity: verified.identity, tags: verified.tags }
    },
    standing: async (identity: string) => { standings++; return await inner.standing(identity) }
  } as unknown as UserStore
  const app = await build({ basic: { users: stampless } })
  t.teardown(() => app.close())
  const me = async (password: string) => await app.inject({ url: '/me', headers: { authorization: basicHeader('alice', password) } })
  t.equal((await me('wonderland-1')).statusCode, 200)
  t.equal((await me('wonderland-1')).statusCode, 200)
  t.equal(verifies, 2, 'verified on every request')
  t.equal(standings, 0, 'no cached entry to re-check')
  await inner.setPassword('alice', 'looking-glass-2')
  const old = await me('wonderland-1')
  t.equal(old.statusCode, 401, 'the old password is refused at once')
  t.equal(old.json().code, 'GATEHOUSE_AUTH_INVALID_CREDENTIALS')
  t.equal((await me('looking-glass-2')).statusCode, 200)
})

test('basic: { validate } answers an Avatar, tags or null, sync or async; its answers are cached', async (t) => {
  const calls: Array<[string, string, boolean]> = []
  const validate = (identity: string, password: string, request: FastifyRequest): Avatar | string | string[] | null | Promise<string | null> => {
    calls.push([identity, password, typeof request.headers === 'object'])
    if (identity === 'avatar' && password === 'pw') return new Avatar('someone-else', { tags: 'admin', backend: 'basic:legacy' })
    if (identity === 'list' && password === 'pw') return ['admin', 'ops']
    if (identity === 'async' && password === 'pw') return Promise.resolve('admin')
    if (identity === 'asyncnull') return Promise.resolve(null)
    if (identity === 'string' && password === 'pw') return 'admin, reader'
    return null
  }
  const app = await build({ basic: { validate } })
  t.teardown(() => app.close())
  const me = async (user: string, password: string): Promise<any> => (await app.inject({ url: '/me', headers: { authorization: basicHeader(user, password) } }))
  t.same((await me('avatar', 'pw')).json(), { identity: 'someone-else', tags: ['admin'], backend: 'basic:legacy' })
  t.same((await me('list', 'pw')).json(), { identity: 'list', tags: ['admin', 'ops'], backend: 'basic' })
  t.same((await me('async', 'pw')).json(), { identity: 'async', tags: ['admin'], backend: 'basic' })
  t.same((await me('string', 'pw')).json(), { identity: 'string', tags: ['admin', 'reader'], backend: 'basic' })
  const refused = await me('list', 'wrong')
  t.equal(refused.statusCode, 401)
  t.equal(refused.json().code, 'GATEHOUSE_AUTH_INVALID_CREDENTIALS')
  t.equal((await me('asyncnull', 'x')).statusCode, 401)
  t.ok(calls.every(([, , hasRequest]) => hasRequest), 'the request is handed over')
  const before = calls.length
  t.equal((await me('list', 'pw')).statusCode, 200)
  t.equal(calls.length, before, 'a verified credential is served from the cache')
  await me('list', 'wrong')
  await me('list', 'wrong')
  t.equal(calls.length, before + 2, 'refusals are never cached')
})

test('a validate that throws: an HttpError keeps its status, code and message; anything else is a 500 logged by its class and code only', async (t) => {
  const lines: string[] = []
  const app = Fastify({ loggerInstance: pino({}, { write: (l: string) => { lines.push(l) } }) as FastifyBaseLogger })
  t.teardown(() => app.close())
  await middlewareChain(app, {
    authMiddleware: {
      basic: {
        validate: async (identity: string, password: string) => {
          if (identity === 'suspended') throw new HttpError(403, 'This account is suspended', { code: 'APP_SUSPENDED' })
          if (identity === 'typo') return true as never
          if (identity === 'badtag') return 'no spaces allowed'
          const err = new Error(`db said: no row for ${identity} with password ${password}`)
          Object.assign(err, { code: 'ECONNRESET', parameters: [identity, password] })
          throw err
        }
      }
    }
  }, { components })
  app.get('/me', { authRule: 'admin' }, async (req) => req.scope.auth)
  const suspended = await app.inject({ url: '/me', headers: { authorization: basicHeader('suspended', 'x') } })
  t.equal(suspended.statusCode, 403)
  t.same(suspended.json(), { statusCode: 403, code: 'APP_SUSPENDED', error: 'Forbidden', message: 'This account is suspended' })

  const broken = await app.inject({ url: '/me', headers: { authorization: basicHeader('alice', 'S3cret-Passw0rd') } })
  t.equal(broken.statusCode, 500)
  t.notMatch(broken.body, 'S3cret-Passw0rd')
  const logged = lines.join('\n')
  t.match(logged, 'GATEHOUSE_AUTH_CALLBACK_FAILED', 'the failure is logged with its code')
  t.match(logged, 'basic.validate threw Error ECONNRESET', 'with the call, the class and the code of what was thrown')
  t.notMatch(logged, 'db said', 'never its message (D-AUTH-63)')
  t.notMatch(logged, 'S3cret-Passw0rd', 'the password is in no log line')

  const typo = await app.inject({ url: '/me', headers: { authorization: basicHeader('typo', 'x') } })
  t.equal(typo.statusCode, 500, 'true is not an answer (return tags or an Avatar)')
  t.match(lines.join('\n'), /basic.validate answered true: expected an Avatar, tags/)
  const badtag = await app.inject({ url: '/me', headers: { authorization: basicHeader('badtag', 'x') } })
  t.equal(badtag.statusCode, 500)
  t.match(lines.join('\n'), /basic.validate answered a tag with characters other than/)
})

test('a store that fails: its own status and code stay (503), its message does not, and the password is in no log line', async (t) => {
  const lines: string[] = []
  const app = Fastify({ loggerInstance: pino({}, { write: (l: string) => { lines.push(l) } }) as FastifyBaseLogger })
  t.teardown(() => app.close())
  const failing = {
    verify: async (identity: string, password: string) => {
      const err = new HttpError(503, 'The user store is unavailable', { code: 'APP_STORE_DOWN' })
      Object.assign(err, { cause: undefined, parameters: [identity, password] })
      err.message = `The user store is unavailable (query for ${identity}/${password})`
      throw err
    },
    standing: async () => null
  } as unknown as UserStore
  await middlewareChain(app, { authMiddleware: { basic: { users: failing } } }, { components })
  app.get('/me', { authRule: 'admin' }, async (req) => req.scope.auth)
  const res = await app.inject({ url: '/me', headers: { authorization: basicHeader('alice', 'S3cret-Passw0rd') } })
  t.equal(res.statusCode, 503)
  t.equal(res.json().code, 'APP_STORE_DOWN')
  t.equal(res.json().message, 'Service Unavailable', 'a store\'s message may quote what it was given: not kept')
  t.match(lines.join('\n'), 'UserStore.verify threw HttpError 503 APP_STORE_DOWN')
  t.notMatch(res.body, 'S3cret-Passw0rd')
  t.notMatch(lines.join('\n'), 'S3cret-Passw0rd', 'not in the message, the stack or the driver\'s parameters')
})

test('the forms of basic are told apart by type; a mix is a boot error naming the option', async (t) => {
  const store = await storeWith(['alice', 'wonderland-1', 'admin'])
  const cases: Array<[string, unknown, RegExp]> = [
    ['a store and a user', { users: store, bob: { password: 'x' } }, /^basic: with users \(a UserStore\) it takes no other key, found "bob"/],
    ['a function and a user', { validate: () => null, bob: { password: 'x' } }, /^basic: with validate \(a function\) it takes no other key, found "bob"/],
    ['a store and a function', { users: store, validate: () => null }, /^basic: give users \(a UserStore\) or validate \(a function\), not both/],
    ['users that is neither', { users: 'users.json' }, /^basic\.users: must be a UserStore \(give it in code: a config file cannot hold one\)/],
    ['validate that is neither', { validate: 'check' }, /^basic\.validate: must be a function/],
    ['a store without standing', { users: { verify: async () => null } }, /^basic\.users: this UserStore has no standing/]
  ]
  for (const [what, basic, message] of cases) {
    await t.rejects(AuthCore.create({ basic: basic as never }), { code: 'GATEHOUSE_AUTH_INVALID_CONFIG', message }, what)
  }
  // Users named users and validate are entries: objects, never a store or a function.
  const core = await AuthCore.create({ basic: { users: { password: 'u-pass' }, validate: { password: 'v-pass', tags: 'x' } } })
  t.same((await core.authenticate(basicHeader('users', 'u-pass'))).identity, 'users')
  t.same((await core.authenticate(basicHeader('validate', 'v-pass'))).tags, ['x'])
  t.throws(() => core.authenticate(basicHeader('users', 'nope')), { code: 'GATEHOUSE_AUTH_INVALID_CREDENTIALS' })
})

test('in a config file, users and validate are user entries: a store or a function is a clear boot error', async (t) => {
  const dir = t.testdir({
    'store.yaml': 'auth_middleware:\n  basic:\n    users: ./users.json\n',
    'fn.yaml': 'auth_middleware:\n  basic:\n    validate: checkPassword\n',
    'bearer.yaml': 'auth_middleware:\n  bearer:\n    auth: checkToken\n',
    'entry.yaml': 'auth_middleware:\n  basic:\n    users: { password_hash: "scrypt$1024,8,1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", tags: ops }\n    alice: { password: pw, tags: admin }\n'
  })
  for (const [file, message] of [['store.yaml', /basic\.users: must be a UserStore \(give it in code: a config file cannot hold one\)/], ['fn.yaml', /basic\.validate: must be a function .*config file cannot hold one/], ['bearer.yaml', /bearer\.auth: must be a function .*config file cannot hold one/]] as const) {
    const recipe = await loadRecipe(join(dir, file), { components })
    const app = Fastify()
    t.teardown(() => app.close())
    await t.rejects(middlewareChain(app, recipe, { components }).then(() => app.ready()), { code: 'GATEHOUSE_AUTH_INVALID_CONFIG', message }, file)
  }
  const recipe = await loadRecipe(join(dir, 'entry.yaml'), { components })
  t.same(recipe.authMiddleware, {
    basic: {
      users: { passwordHash: 'scrypt$1024,8,1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', tags: 'ops' },
      alice: { password: 'pw', tags: 'admin' }
    }
  }, 'a user named users keeps its snake_case conversion')
  const typo = t.testdir({ 'typo.yaml': 'auth_middleware:\n  basic:\n    alice: { pasword: pw }\n' })
  await t.rejects(loadRecipe(join(typo, 'typo.yaml'), { components }), { code: 'GATEHOUSE_CORE_INVALID_OPTIONS', message: /auth_middleware\.basic\.alice\.pasword: unknown option/ })
})

test('basicConcurrency bounds the password checks in flight: one more is a 503 with Retry-After, never queued', async (t) => {
  let release!: () => void
  const gate = new Promise<void>((resolve) => { release = resolve })
  let started = 0
  const app = await build({
    basicConcurrency: 3,
    basic: { validate: async (identity) => { started++; await gate; return identity === 'alice' ? 'admin' : null } }
  })
  t.teardown(() => app.close())
  const pending = [1, 2, 3].map((i) => app.inject({ url: '/me', headers: { authorization: basicHeader('alice', `pw-${i}`) } }))
  const { waitUntil } = await import('../../../test-helpers/wait.js')
  await waitUntil(() => started === 3, { what: 'three checks in flight' })
  const refused = await app.inject({ url: '/me', headers: { authorization: basicHeader('alice', 'pw-4') } })
  t.equal(refused.statusCode, 503)
  t.equal(refused.headers['retry-after'], '1')
  t.equal(refused.json().code, 'GATEHOUSE_AUTH_BUSY')
  t.equal(started, 3, 'the refused one never reached validate')
  release()
  t.same((await Promise.all(pending)).map((r) => r.statusCode), [200, 200, 200])
  t.equal((await app.inject({ url: '/me', headers: { authorization: basicHeader('alice', 'pw-5') } })).statusCode, 200, 'room again once they settled')
  await t.rejects(AuthCore.create({ basicConcurrency: 0 }), { code: 'GATEHOUSE_AUTH_INVALID_CONFIG', message: /^basicConcurrency: must be a whole number from 1 to 10000/ })
})

test('basicLockout locks an identity after failed passwords (429, Retry-After); a cached credential keeps working', async (t) => {
  const store = await storeWith(['alice', 'wonderland-1', 'admin'])
  const lockouts = new MemoryLockoutStore()
  const app = await build({ basic: { users: store }, basicLockout: { store: lockouts, maxAttempts: 3, backoff: 60 } })
  t.teardown(() => app.close())
  const me = async (password: string): Promise<any> => await app.inject({ url: '/me', headers: { authorization: basicHeader('alice', password) } })
  t.equal((await me('wonderland-1')).statusCode, 200, 'cached before the attack')
  for (let i = 0; i < 3; i++) t.equal((await me(`guess-${i}`)).statusCode, 401)
  const locked = await me('guess-3')
  t.equal(locked.statusCode, 429)
  t.equal(locked.json().code, 'GATEHOUSE_AUTH_LOCKED')
  t.ok(Number(locked.headers['retry-after']) > 0 && Number(locked.headers['retry-after']) <= 60)
  t.equal((await me('wonderland-1')).statusCode, 200, 'the cached right password is not locked out by the guesses')
  t.ok(lockouts.lockedFor('identity:alice', Date.now()) > 0, 'counted under the server login\'s key')
  t.ok(lockouts.lockedFor('address:127.0.0.1', Date.now()) === 0, 'the address has room left (4 × maxAttempts)')
  await t.rejects(AuthCore.create({ basicLockout: { maxAttempts: 0 } }), { code: 'GATEHOUSE_AUTH_INVALID_CONFIG', message: /^basicLockout\.maxAttempts: must be a whole number from 1/ })
  await t.rejects(AuthCore.create({ basicLockout: { store: {} as never } }), { code: 'GATEHOUSE_AUTH_INVALID_CONFIG', message: /^basicLockout\.store: must be a LockoutStore/ })
  const noReset = { claim: async () => ({}), recordFailure: async () => ({}), refund: async () => {} }
  await t.rejects(AuthCore.create({ basicLockout: { store: noReset as never } }), { code: 'GATEHOUSE_AUTH_INVALID_CONFIG', message: /^basicLockout\.store: must be a LockoutStore \(claim, recordFailure, refund, reset\)/ }, 'a store without reset would fail every right password later')
})

test('basicLockout with a plain-password entry is a boot error naming the entry', async (t) => {
  const { AuthCore } = await import('@fastify-gatehouse/auth')
  await t.rejects(AuthCore.create({ basic: { alice: { password: 'a-plain-password-1' } }, basicLockout: { maxAttempts: 3 } }),
    { code: 'GATEHOUSE_AUTH_INVALID_CONFIG', message: /^basicLockout: cannot protect basic\.alice, a plain password: give it as passwordHash/ })
  t.resolves(AuthCore.create({ basic: { alice: { password: 'a-plain-password-1' } } }), 'without the lockout a plain entry is fine')
})
