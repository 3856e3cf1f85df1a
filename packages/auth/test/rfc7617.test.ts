import { test } from 'tap'
import { AuthCore, hashPassword } from '@fastify-gatehouse/auth'
import { basicHeader, build } from './helpers/build.js'

const FAST = { N: 1024, r: 8, p: 1 }
const CHALLENGE = 'Basic realm="gatehouse", charset="UTF-8"'

test('basic: plain and hashed passwords', async (t) => {
  const app = await build({
    basic: {
      alice: { password: 'wonder land', tags: 'admin,ops' },
      björn: { password: 'ümlaut:colon', tags: ['reader'] },
      carol: { passwordHash: await hashPassword('s3cret', FAST), tags: 'reader' }
    }
  })
  t.teardown(() => app.close())
  const alice = await app.inject({ url: '/me', headers: { authorization: basicHeader('alice', 'wonder land') } })
  t.equal(alice.statusCode, 200)
  t.same(alice.json(), { identity: 'alice', tags: ['admin', 'ops'], backend: 'basic' })
  const bjorn = await app.inject({ url: '/me', headers: { authorization: basicHeader('björn', 'ümlaut:colon') } })
  t.same(bjorn.json(), { identity: 'björn', tags: ['reader'], backend: 'basic' }, 'UTF-8 names, a colon in the password')
  for (let i = 0; i < 2; i++) {
    const carol = await app.inject({ url: '/me', headers: { authorization: basicHeader('carol', 's3cret') } })
    t.same(carol.json(), { identity: 'carol', tags: ['reader'], backend: 'basic' }, `hashed entry, call ${i + 1}`)
  }
  const scheme = await app.inject({ url: '/me', headers: { authorization: 'bAsIc ' + basicHeader('alice', 'wonder land').slice(6) } })
  t.equal(scheme.statusCode, 200, 'the scheme is case-insensitive')
})

test('basic: wrong or unknown credentials are a 401 with the Basic challenge', async (t) => {
  const app = await build({ basic: { alice: { password: 'pw' }, carol: { passwordHash: await hashPassword('s3cret', FAST) } } })
  t.teardown(() => app.close())
  for (const [user, password] of [['alice', 'nope'], ['mallory', 'pw'], ['carol', 'wrong'], ['nobody', 's3cret']] as const) {
    const res = await app.inject({ url: '/open', headers: { authorization: basicHeader(user, password) } })
    t.equal(res.statusCode, 401, `${user}:${password}`)
    t.equal(res.headers['www-authenticate'], CHALLENGE)
    t.same(res.json(), { statusCode: 401, code: 'GATEHOUSE_AUTH_INVALID_CREDENTIALS', error: 'Unauthorized', message: 'Invalid user name or password' })
  }
})

test('basic: malformed credentials are 401s, never 500s', async (t) => {
  const app = await build({ basic: { alice: { password: 'pw' } } })
  t.teardown(() => app.close())
  const cases: Array<[string, string]> = [
    ['Basic', 'GATEHOUSE_AUTH_BAD_HEADER'],
    ['Basic ', 'GATEHOUSE_AUTH_BAD_HEADER'],
    ['Basic !!!notbase64', 'GATEHOUSE_AUTH_BAD_HEADER'],
    ['Basic YWxpY2U', 'GATEHOUSE_AUTH_BAD_HEADER'],
    [`Basic ${Buffer.from('no-colon').toString('base64')}`, 'GATEHOUSE_AUTH_BAD_HEADER'],
    [`Basic ${Buffer.from('alice:p\nw').toString('base64')}`, 'GATEHOUSE_AUTH_BAD_HEADER'],
    [`Basic ${'QUFB'.repeat(3000)}`, 'GATEHOUSE_AUTH_BAD_HEADER'],
    ['Basic\tYWxpY2U6cHc=', 'GATEHOUSE_AUTH_BAD_HEADER'],
    ['Negotiate abc', 'GATEHOUSE_AUTH_UNSUPPORTED_SCHEME'],
    ['Bearer abc', 'GATEHOUSE_AUTH_UNSUPPORTED_SCHEME']
  ]
  for (const [authorization, code] of cases) {
    const res = await app.inject({ url: '/open', headers: { authorization } })
    t.equal(res.statusCode, 401, authorization.slice(0, 30))
    t.equal(res.json().code, code, authorization.slice(0, 30))
    t.equal(res.headers['www-authenticate'], CHALLENGE)
  }
})

test('basic: hashed credentials are verified once, then cached within bounds', async (t) => {
  let now = 1_000_000
  const core = await AuthCore.create({
    basic: { carol: { passwordHash: await hashPassword('s3cret', FAST) } },
    basicCache: { max: 1, ttl: 10 },
    now: () => now
  })
  const header = basicHeader('carol', 's3cret')
  const first = core.authenticate(header)
  t.ok(first instanceof Promise, 'the first check hashes (async)')
  await first
  const second = core.authenticate(header)
  t.notOk(second instanceof Promise, 'a cached credential is answered synchronously')
  now += 11_000
  t.ok(core.authenticate(header) instanceof Promise, 'the cache entry expires after ttl')
  await core.authenticate(header)
  await t.rejects(Promise.resolve(core.authenticate(basicHeader('carol', 'wrong'))), { message: 'Invalid user name or password', code: 'GATEHOUSE_AUTH_INVALID_CREDENTIALS' })
  t.notOk(core.authenticate(header) instanceof Promise, 'a failure does not evict the good entry')
})

test('basic: the cache of verified credentials keeps at most max entries', async (t) => {
  const hashed = async (password: string) => ({ passwordHash: await hashPassword(password, FAST) })
  const core = await AuthCore.create({
    basic: { carol: await hashed('s3cret'), dave: await hashed('hunter2'), erin: await hashed('tr0ub4dor') },
    basicCache: { max: 2, ttl: 60 }
  })
  const carol = basicHeader('carol', 's3cret')
  const dave = basicHeader('dave', 'hunter2')
  const erin = basicHeader('erin', 'tr0ub4dor')
  const cached = (header: string) => {
    const outcome = core.authenticate(header)
    return { cached: !(outcome instanceof Promise), settled: Promise.resolve(outcome) }
  }
  await core.authenticate(carol)
  await core.authenticate(dave)
  t.ok(cached(carol).cached, 'carol cached')
  await core.authenticate(erin)
  // Which one went is the cache's choice (sampled eviction, not LRU: D-AUTH-57).
  const states = [carol, dave, erin].map(cached)
  t.equal(states.filter((s) => s.cached).length, 2, 'two of the three are served from the cache: max 2')
  t.ok(states[2]!.cached, 'erin, just verified, is cached')
  await Promise.all(states.map((s) => s.settled))
  const off = await AuthCore.create({ basic: { carol: await hashed('s3cret') }, basicCache: { max: 0, ttl: 60 } })
  await off.authenticate(carol)
  const uncached = off.authenticate(carol)
  t.ok(uncached instanceof Promise, 'max 0 turns the cache off')
  await uncached
})

test('basic: bad entries fail at boot naming the entry', async (t) => {
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [{ alice: {} }, /^basic\.alice: give exactly one of password or passwordHash$/],
    [{ alice: { password: 'a', passwordHash: 'b' } }, /^basic\.alice: give exactly one/],
    [{ alice: { passwordHash: 'md5$abc' } }, /^basic\.alice\.passwordHash: Invalid password hash: expected scrypt\$N,r,p\$salt\$hash; make one with `gatehouse users hash`$/],
    [{ alice: { passwordHash: 'scrypt$1000,8,1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' } }, /N must be a power of two/],
    [{ 'a:b': { password: 'x' } }, /^basic\.a:b: a user name cannot be empty or contain ":"/]
  ]
  for (const [basic, message] of cases) {
    await t.rejects(AuthCore.create({ basic: basic as never }), { code: 'GATEHOUSE_AUTH_INVALID_CONFIG', message })
  }
})
