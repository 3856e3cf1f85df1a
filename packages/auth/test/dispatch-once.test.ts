import { test, type Test } from 'tap'
import { createHash, createHmac } from 'node:crypto'
import { AuthCore, MemoryApiKeyStore, MemoryUserStore, type AuthOptions } from '@fastify-gatehouse/auth'
import { TOKEN68 } from '../src/bearer.js'
import { BoundedCache } from '../src/bounded-cache.js'
import { JwtVerifier } from '../src/jwt.js'
import { hashPassword } from '../src/password.js'
import { SecretTable } from '../src/secret-table.js'
import { build } from './helpers/build.js'

// Issue 26, item 6: one path from the Authorization header to the backend
// that answers it. The usual spelling (`Bearer <token>`) and every other one
// reach the same dispatch, and on a miss each source is asked once: the
// static tokens, the verified-JWT cache, the verified-Basic cache, the
// syntax check, then the one backend that answers (key store, user store,
// validate, bearer.auth, the JWT verifier). D-AUTH-82.

const SECRET = 'a-very-long-shared-secret-of-32+bytes!'
function hs256 (claims: Record<string, unknown>, secret = SECRET): string {
  const part = (v: unknown): string => Buffer.from(JSON.stringify(v)).toString('base64url')
  const input = `${part({ alg: 'HS256', typ: 'JWT' })}.${part(claims)}`
  return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`
}
const b64 = (s: string): string => Buffer.from(s).toString('base64')
const digest = (s: string): string => createHash('sha256').update(s).digest('base64url')
const JWT = hs256({ sub: 'jwt-user', tags: ['reader'], exp: 4102444800 })
const EXPIRED = hs256({ sub: 'jwt-user', tags: ['reader'], exp: 1000000000 })
const FORGED = hs256({ sub: 'jwt-user', tags: ['reader'], exp: 4102444800 }, 'another-secret-of-at-least-32-bytes!!')
const TOKEN = 'abc.DEF-123_~+/='
const jwt = [{ name: 'main', secret: SECRET, algorithm: 'HS256', tagsClaim: 'tags' }] as AuthOptions['jwt']
const CHEAP = { N: 16, r: 1, p: 1 }

/** How often each source was asked, per value asked about, since the last `reset()`. */
interface Asks {
  /** Static secrets (bearer tokens, plain Basic credentials), by candidate. */
  readonly tables: Map<string, number>
  /** Bounded caches, by key: verified JWTs by token, verified Basic credentials by their SHA-256 (also decoded JWS headers, challenges). */
  readonly caches: Map<string, number>
  /** The b64token check, by value. */
  readonly syntax: Map<string, number>
  /** JWT signature checks. */
  verifier: number
  reset: () => void
}

const bump = (map: Map<string, number>, key: string): void => { map.set(key, (map.get(key) ?? 0) + 1) }

// Counts every ask of the shared building blocks, whichever AuthCore asks.
function countAsks (t: Test): Asks {
  const asks: Asks = {
    tables: new Map(),
    caches: new Map(),
    syntax: new Map(),
    verifier: 0,
    reset () { asks.tables.clear(); asks.caches.clear(); asks.syntax.clear(); asks.verifier = 0 }
  }
  const find = SecretTable.prototype.find
  SecretTable.prototype.find = function (this: SecretTable<unknown>, candidate: string) { bump(asks.tables, candidate); return find.call(this, candidate) }
  const get = BoundedCache.prototype.get
  BoundedCache.prototype.get = function (this: BoundedCache<unknown>, key: string, now: number) { bump(asks.caches, key); return get.call(this, key, now) }
  const verify = JwtVerifier.prototype.verify
  JwtVerifier.prototype.verify = function (this: JwtVerifier, ...args: Parameters<JwtVerifier['verify']>) { asks.verifier++; return verify.apply(this, args) }
  TOKEN68.test = function (this: RegExp, value: string) { bump(asks.syntax, value); return RegExp.prototype.test.call(this, value) }
  t.teardown(() => {
    SecretTable.prototype.find = find
    BoundedCache.prototype.get = get
    JwtVerifier.prototype.verify = verify
    Reflect.deleteProperty(TOKEN68, 'test')
  })
  return asks
}

const counts = (map: Map<string, number>): Record<string, number> => Object.fromEntries(map)

/** Authenticates `header` with the counters reset first; the caller's identity, or the refusal's code. */
async function ask (core: AuthCore, asks: Asks, header: string): Promise<string> {
  asks.reset()
  try {
    return (await core.authenticate(header)).identity
  } catch (err) {
    return (err as { code: string }).code
  }
}

test('Basic from a map: the known credentials are asked once, hit or miss, in any spelling', async (t) => {
  const asks = countAsks(t)
  const core = await AuthCore.create({ basic: { alice: { password: 'wonderland', tags: 'reader' }, bob: { passwordHash: await hashPassword('builder', CHEAP) } } })
  const alice = b64('alice:wonderland')
  const bob = b64('bob:builder')
  t.equal(await ask(core, asks, `Basic ${alice}`), 'alice')
  t.same(counts(asks.tables), { [alice]: 1 })
  t.same(counts(asks.caches), {}, 'nothing verified yet: the cache of verified hashes is not asked')
  const wrong = b64('alice:wonderlanD')
  for (const header of [`Basic ${wrong}`, `basic  ${wrong} `]) {
    t.equal(await ask(core, asks, header), 'GATEHOUSE_AUTH_INVALID_CREDENTIALS', header)
    t.same(counts(asks.tables), { [wrong]: 1 }, `${header}: the table once`)
  }
  t.equal(await ask(core, asks, `Basic ${bob}`), 'bob', 'a passwordHash user, verified (scrypt)')
  t.same(counts(asks.tables), { [bob]: 1 })
  t.equal(await ask(core, asks, `Basic ${bob}`), 'bob', 'then served from the cache')
  t.same([counts(asks.tables), counts(asks.caches)], [{ [bob]: 1 }, { [digest(bob)]: 1 }])
  const bobWrong = b64('bob:bu1lder')
  t.equal(await ask(core, asks, `Basic ${bobWrong}`), 'GATEHOUSE_AUTH_INVALID_CREDENTIALS', 'a miss with the cache holding something')
  t.same([counts(asks.tables), counts(asks.caches)], [{ [bobWrong]: 1 }, { [digest(bobWrong)]: 1 }], 'the table and the cache once each')
})

test('Basic from validate and from a user store: the cache once, the backend once', async (t) => {
  const asks = countAsks(t)
  let validated = 0
  const validating = await AuthCore.create({ basic: { validate: (user, password) => { validated++; return user === 'alice' && password === 'wonderland' ? ['reader'] : null } } })
  const alice = b64('alice:wonderland')
  t.equal(await ask(validating, asks, `Basic ${alice}`), 'alice')
  t.same([validated, counts(asks.caches)], [1, {}], 'validate once; the empty cache is not asked')
  t.equal(await ask(validating, asks, `Basic ${alice}`), 'alice')
  t.same([validated, counts(asks.caches)], [1, { [digest(alice)]: 1 }], 'a hit: the cache once, validate not again')
  const wrong = b64('alice:wonderlanD')
  t.equal(await ask(validating, asks, `Basic ${wrong}`), 'GATEHOUSE_AUTH_INVALID_CREDENTIALS')
  t.same([validated, counts(asks.caches)], [2, { [digest(wrong)]: 1 }], 'a miss: the cache once, validate once')

  const users = new MemoryUserStore({ scrypt: CHEAP })
  await users.add('carol', { password: 'correct horse', tags: 'reader' })
  const calls = { verify: 0, standing: 0 }
  const verify = users.verify.bind(users)
  const standing = users.standing.bind(users)
  users.verify = async (identity, password) => { calls.verify++; return await verify(identity, password) }
  users.standing = async (identity) => { calls.standing++; return await standing(identity) }
  const stored = await AuthCore.create({ basic: { users } })
  const carol = b64('carol:correct horse')
  t.equal(await ask(stored, asks, `Basic ${carol}`), 'carol')
  t.same([calls, counts(asks.caches)], [{ verify: 1, standing: 0 }, {}], 'verified by the store once')
  t.equal(await ask(stored, asks, `Basic ${carol}`), 'carol')
  t.same([calls, counts(asks.caches)], [{ verify: 1, standing: 1 }, { [digest(carol)]: 1 }], 'a hit: the cache once, then the standing once')
})

test('bearer: static tokens and the JWT cache are asked once, before the syntax; hits skip the syntax', async (t) => {
  const asks = countAsks(t)
  const core = await AuthCore.create({ bearer: { svc: { token: TOKEN, tags: 'ops' } }, jwt })
  t.equal(await ask(core, asks, `Bearer ${TOKEN}`), 'svc')
  t.same([counts(asks.tables), counts(asks.caches), counts(asks.syntax)], [{ [TOKEN]: 1 }, {}, {}], 'a static token: found before the cache and the syntax')

  t.equal(await ask(core, asks, `Bearer ${JWT}`), 'jwt-user')
  t.same([counts(asks.tables), asks.caches.get(JWT), counts(asks.syntax), asks.verifier], [{ [JWT]: 1 }, 1, { [JWT]: 1 }, 1], 'a new JWT: each source once, then the verifier')
  t.equal(await ask(core, asks, `Bearer ${JWT}`), 'jwt-user')
  t.same([counts(asks.tables), counts(asks.caches), counts(asks.syntax), asks.verifier], [{ [JWT]: 1 }, { [JWT]: 1 }, {}, 0], 'the same JWT: a cache hit, no syntax check, no signature check, nothing else')

  for (const header of [`bearer  ${FORGED}`, `Bearer ${FORGED} `, `BEARER ${FORGED}`]) {
    t.equal(await ask(core, asks, header), 'GATEHOUSE_AUTH_INVALID_TOKEN', header)
    t.same([counts(asks.tables), asks.caches.get(FORGED), counts(asks.syntax), asks.verifier], [{ [FORGED]: 1 }, 1, { [FORGED]: 1 }, 1], `${header}: parsed, then each source once`)
  }
  const unknown = TOKEN.slice(0, -1)
  t.equal(await ask(core, asks, `Bearer ${unknown}`), 'GATEHOUSE_AUTH_INVALID_TOKEN')
  t.same([counts(asks.tables), asks.caches.get(unknown), counts(asks.syntax)], [{ [unknown]: 1 }, 1, { [unknown]: 1 }])
  t.equal(await ask(core, asks, 'Bearer a{b'), 'GATEHOUSE_AUTH_INVALID_REQUEST', 'not a b64token')
  t.same([counts(asks.tables), asks.caches.get('a{b'), counts(asks.syntax)], [{ 'a{b': 1 }, 1, { 'a{b': 1 }], 'asked once, refused by the syntax')

  const tokensOnly = await AuthCore.create({ bearer: { svc: { token: TOKEN, tags: 'ops' } } })
  t.equal(await ask(tokensOnly, asks, `Bearer ${unknown}`), 'GATEHOUSE_AUTH_INVALID_TOKEN')
  t.same([counts(asks.tables), asks.caches.get(unknown)], [{ [unknown]: 1 }, undefined], 'without JWT verifiers the JWT cache is not asked')
})

test('API keys: only the key store, once; never the static tokens or the JWT cache', async (t) => {
  const asks = countAsks(t)
  const apiKeys = new MemoryApiKeyStore()
  const { key } = await apiKeys.issue({ label: 'ci-bot', tags: 'reader' })
  const verified: string[] = []
  const verify = apiKeys.verify.bind(apiKeys)
  apiKeys.verify = (k) => { verified.push(k); return verify(k) }
  const core = await AuthCore.create({ bearer: { svc: { token: TOKEN, tags: 'ops' } }, jwt, apiKeys })
  const unknown = key.slice(0, -1) + (key.endsWith('A') ? 'B' : 'A')
  for (const [header, answer] of [[`Bearer ${key}`, 'ci-bot'], [`bearer  ${key} `, 'ci-bot'], [`Bearer ${unknown}`, 'GATEHOUSE_AUTH_INVALID_TOKEN']] as const) {
    verified.length = 0
    t.equal(await ask(core, asks, header), answer, header)
    const sent = header.trim().split(/ +/)[1]!
    t.same([verified, counts(asks.tables), asks.caches.get(sent), counts(asks.syntax)], [[sent], {}, undefined, { [sent]: 1 }], `${header}: the store once`)
  }
  verified.length = 0
  t.equal(await ask(core, asks, 'Bearer gak_0123'), 'GATEHOUSE_AUTH_INVALID_TOKEN', 'a malformed key is refused before the store')
  t.same(verified, [])
})

test('bearer.auth: the function once, then (when it answers null) the JWT cache once', async (t) => {
  const asks = countAsks(t)
  const seen: string[] = []
  const core = await AuthCore.create({ bearer: { auth: (token) => { seen.push(token); return token === 'fn-token' ? ['ops'] : null } }, jwt })
  t.equal(await ask(core, asks, 'Bearer fn-token'), 'bearer')
  t.same([seen, counts(asks.tables), counts(asks.caches), counts(asks.syntax)], [['fn-token'], {}, {}, { 'fn-token': 1 }], 'the function answers: no JWT cache')
  for (const verifies of [1, 0]) {
    seen.length = 0
    t.equal(await ask(core, asks, `Bearer ${JWT}`), 'jwt-user')
    t.same([seen, asks.caches.get(JWT), counts(asks.syntax), asks.verifier], [[JWT], 1, { [JWT]: 1 }, verifies], `the function first (D-AUTH-46), then the cache once${verifies === 1 ? ', then the verifier' : ': a hit'}`)
  }
  seen.length = 0
  t.equal(await ask(core, asks, `Bearer ${EXPIRED}`), 'GATEHOUSE_AUTH_INVALID_TOKEN')
  t.same([seen, asks.caches.get(EXPIRED), asks.verifier], [[EXPIRED], 1, 1])
})

// What every spelling answered before the dispatch became one path (the
// responses of commit 934107e, recorded with the same requests): status,
// the caller or the error code, the message, the challenge.
type Row = [config: string, what: string, header: string, status: number, who: string, message: string | null, challenge: string | string[] | null]
const ROWS: Row[] = [
  ['static', 'basic', `Basic ${b64('alice:wonderland')}`, 200, 'alice', null, null],
  ['static', 'basic, wrong password', `Basic ${b64('alice:wonderlanD')}`, 401, 'GATEHOUSE_AUTH_INVALID_CREDENTIALS', 'Invalid user name or password', 'Basic realm="gatehouse", charset="UTF-8"'],
  ['static', 'basic, lower-case scheme', `basic ${b64('alice:wonderland')}`, 200, 'alice', null, null],
  ['static', 'basic, padded', `Basic  ${b64('alice:wonderland')} `, 200, 'alice', null, null],
  ['static', 'basic, not base64', 'Basic not-base64!', 401, 'GATEHOUSE_AUTH_BAD_HEADER', 'Basic credentials must be base64', 'Basic realm="gatehouse", charset="UTF-8"'],
  ['static', 'basic, no colon', `Basic ${b64('alice')}`, 401, 'GATEHOUSE_AUTH_BAD_HEADER', 'Basic credentials must be user:password without control characters', 'Basic realm="gatehouse", charset="UTF-8"'],
  ['static', 'basic, a tab inside', 'Basic YWxp\tY2U=', 401, 'GATEHOUSE_AUTH_BAD_HEADER', 'Malformed Authorization header: the Authorization header contains control characters', ['Basic realm="gatehouse", charset="UTF-8"', 'Bearer realm="gatehouse"']],
  ['static', 'basic, empty', 'Basic ', 401, 'GATEHOUSE_AUTH_BAD_HEADER', 'Malformed Authorization header: the Authorization header has no credentials', ['Basic realm="gatehouse", charset="UTF-8"', 'Bearer realm="gatehouse"']],
  ['static', 'static token', `Bearer ${TOKEN}`, 200, 'svc', null, null],
  ['static', 'static token, upper-case scheme', `BEARER ${TOKEN}`, 200, 'svc', null, null],
  ['static', 'static token, padded', `bearer   ${TOKEN}  `, 200, 'svc', null, null],
  ['static', 'static token, two spaces', `Bearer  ${TOKEN}`, 200, 'svc', null, null],
  ['static', 'static token, a prefix of it', `Bearer ${TOKEN.slice(0, -1)}`, 401, 'GATEHOUSE_AUTH_INVALID_TOKEN', 'The token is not valid', 'Bearer realm="gatehouse", error="invalid_token", error_description="The token is not valid"'],
  ['static', 'bearer, a space inside', 'Bearer a b', 400, 'GATEHOUSE_AUTH_INVALID_REQUEST', 'Malformed bearer request: the bearer token is not a b64token', 'Bearer realm="gatehouse", error="invalid_request", error_description="Malformed bearer request: the bearer token is not a b64token"'],
  ['static', 'bearer, a tab inside', 'Bearer ab\tcd', 400, 'GATEHOUSE_AUTH_INVALID_REQUEST', 'Malformed bearer request: the Authorization header contains control characters', 'Bearer realm="gatehouse", error="invalid_request", error_description="Malformed bearer request: the Authorization header contains control characters"'],
  ['static', 'bearer, a tab after the scheme', `Bearer\t${TOKEN}`, 400, 'GATEHOUSE_AUTH_INVALID_REQUEST', 'Malformed bearer request: the Authorization header contains control characters', 'Bearer realm="gatehouse", error="invalid_request", error_description="Malformed bearer request: the Authorization header contains control characters"'],
  ['static', 'bearer, trailing tab', `Bearer ${TOKEN}\t`, 400, 'GATEHOUSE_AUTH_INVALID_REQUEST', 'Malformed bearer request: the Authorization header contains control characters', 'Bearer realm="gatehouse", error="invalid_request", error_description="Malformed bearer request: the Authorization header contains control characters"'],
  ['static', 'bearer, empty', 'Bearer ', 400, 'GATEHOUSE_AUTH_INVALID_REQUEST', 'Malformed bearer request: the Authorization header has no credentials', 'Bearer realm="gatehouse", error="invalid_request", error_description="Malformed bearer request: the Authorization header has no credentials"'],
  ['static', 'bearer, no space', 'Bearer', 400, 'GATEHOUSE_AUTH_INVALID_REQUEST', 'Malformed bearer request: the Authorization header has no credentials', 'Bearer realm="gatehouse", error="invalid_request", error_description="Malformed bearer request: the Authorization header has no credentials"'],
  ['static', 'bearer, not a b64token', 'Bearer ab{cd', 400, 'GATEHOUSE_AUTH_INVALID_REQUEST', 'Malformed bearer request: the bearer token is not a b64token', 'Bearer realm="gatehouse", error="invalid_request", error_description="Malformed bearer request: the bearer token is not a b64token"'],
  ['static', 'bearer, = inside', 'Bearer ab=c', 400, 'GATEHOUSE_AUTH_INVALID_REQUEST', 'Malformed bearer request: the bearer token is not a b64token', 'Bearer realm="gatehouse", error="invalid_request", error_description="Malformed bearer request: the bearer token is not a b64token"'],
  ['static', 'jwt', `Bearer ${JWT}`, 200, 'jwt-user', null, null],
  ['static', 'jwt, again (cached)', `Bearer ${JWT}`, 200, 'jwt-user', null, null],
  ['static', 'jwt, padded', `Bearer ${JWT} `, 200, 'jwt-user', null, null],
  ['static', 'jwt, expired', `Bearer ${EXPIRED}`, 401, 'GATEHOUSE_AUTH_INVALID_TOKEN', 'The token has expired', 'Bearer realm="gatehouse", error="invalid_token", error_description="The token has expired"'],
  ['static', 'jwt, bad signature', `Bearer ${FORGED}`, 401, 'GATEHOUSE_AUTH_INVALID_TOKEN', 'The token signature is invalid', 'Bearer realm="gatehouse", error="invalid_token", error_description="The token signature is invalid"'],
  ['static', 'api key', 'Bearer <key>', 200, 'ci-bot', null, null],
  ['static', 'api key, again', 'Bearer <key>', 200, 'ci-bot', null, null],
  ['static', 'api key, unknown', 'Bearer <unknown key>', 401, 'GATEHOUSE_AUTH_INVALID_TOKEN', 'The API key is unknown, revoked or expired', 'Bearer realm="gatehouse", error="invalid_token", error_description="The API key is unknown, revoked or expired"'],
  ['static', 'api key, malformed', 'Bearer gak_0123', 401, 'GATEHOUSE_AUTH_INVALID_TOKEN', 'Malformed API key', 'Bearer realm="gatehouse", error="invalid_token", error_description="Malformed API key"'],
  ['static', 'api key, not a b64token', 'Bearer gak_01{23', 400, 'GATEHOUSE_AUTH_INVALID_REQUEST', 'Malformed bearer request: the bearer token is not a b64token', 'Bearer realm="gatehouse", error="invalid_request", error_description="Malformed bearer request: the bearer token is not a b64token"'],
  ['static', 'api key, padded', 'bearer  <key> ', 200, 'ci-bot', null, null],
  ['static', 'another scheme', 'Digest username="alice"', 401, 'GATEHOUSE_AUTH_UNSUPPORTED_SCHEME', 'The Digest scheme is not accepted here. Sign in with Basic or Bearer credentials', ['Basic realm="gatehouse", charset="UTF-8"', 'Bearer realm="gatehouse"']],
  ['static', 'a bare credential', TOKEN, 401, 'GATEHOUSE_AUTH_BAD_HEADER', 'Malformed Authorization header: the Authorization header has no credentials', ['Basic realm="gatehouse", charset="UTF-8"', 'Bearer realm="gatehouse"']],
  ['static', 'a long header', `Bearer ${'a'.repeat(9000)}`, 400, 'GATEHOUSE_AUTH_INVALID_REQUEST', 'Malformed bearer request: the Authorization header is too long', 'Bearer realm="gatehouse", error="invalid_request", error_description="Malformed bearer request: the Authorization header is too long"'],
  ['functions', 'validate', `Basic ${b64('alice:wonderland')}`, 200, 'alice', null, null],
  ['functions', 'validate, again (cached)', `Basic ${b64('alice:wonderland')}`, 200, 'alice', null, null],
  ['functions', 'validate, wrong password', `Basic ${b64('alice:wonderlanD')}`, 401, 'GATEHOUSE_AUTH_INVALID_CREDENTIALS', 'Invalid user name or password', 'Basic realm="gatehouse", charset="UTF-8"'],
  ['functions', 'bearer.auth', 'Bearer fn-token', 200, 'bearer', null, null],
  ['functions', 'bearer.auth null, then a jwt', `Bearer ${JWT}`, 200, 'jwt-user', null, null],
  ['functions', 'bearer.auth null, then the cached jwt', `Bearer ${JWT}`, 200, 'jwt-user', null, null],
  ['functions', 'bearer.auth null, not a jwt', 'Bearer unknown', 401, 'GATEHOUSE_AUTH_INVALID_TOKEN', 'The token is not valid', 'Bearer realm="gatehouse", error="invalid_token", error_description="The token is not valid"'],
  ['functions', 'bearer.auth, an api key', 'Bearer <key>', 401, 'GATEHOUSE_AUTH_INVALID_TOKEN', 'API keys are not accepted here', 'Bearer realm="gatehouse", error="invalid_token", error_description="API keys are not accepted here"'],
  ['functions', 'bearer.auth, not a b64token', 'Bearer a{b', 400, 'GATEHOUSE_AUTH_INVALID_REQUEST', 'Malformed bearer request: the bearer token is not a b64token', 'Bearer realm="gatehouse", error="invalid_request", error_description="Malformed bearer request: the bearer token is not a b64token"'],
  ['exact', 'exact scheme', `Token ${TOKEN}`, 200, 'svc', null, null],
  ['exact', 'exact scheme, padded', `Token  ${TOKEN} `, 200, 'svc', null, null],
  ['exact', 'exact scheme, miscased', `token ${TOKEN}`, 401, 'GATEHOUSE_AUTH_UNSUPPORTED_SCHEME', 'The scheme must be written exactly Token', 'Token realm="gatehouse"'],
  ['exact', 'exact scheme, Bearer', `Bearer ${TOKEN}`, 401, 'GATEHOUSE_AUTH_UNSUPPORTED_SCHEME', 'The Bearer scheme is not accepted here. Sign in with Token credentials', 'Token realm="gatehouse"'],
  ['exact', 'exact scheme, not a b64token', 'Token a b', 400, 'GATEHOUSE_AUTH_INVALID_REQUEST', 'Malformed bearer request: the bearer token is not a b64token', 'Token realm="gatehouse", error="invalid_request", error_description="Malformed bearer request: the bearer token is not a b64token"'],
  ['exact', 'exact scheme, a tab inside', 'Token a\tb', 400, 'GATEHOUSE_AUTH_INVALID_REQUEST', 'Malformed bearer request: the Authorization header contains control characters', 'Token realm="gatehouse", error="invalid_request", error_description="Malformed bearer request: the Authorization header contains control characters"'],
  ['exact', 'exact scheme, basic', `Basic ${b64('alice:wonderland')}`, 401, 'GATEHOUSE_AUTH_UNSUPPORTED_SCHEME', 'The Basic scheme is not accepted here. Sign in with Token credentials', 'Token realm="gatehouse"']
]

test('every spelling answers as before: status, caller or code, message, challenge', async (t) => {
  const keys = new MemoryApiKeyStore()
  const { key } = await keys.issue({ label: 'ci-bot', tags: 'reader' })
  const configs: Record<string, AuthOptions> = {
    static: { basic: { alice: { password: 'wonderland', tags: 'reader' } }, bearer: { svc: { token: TOKEN, tags: 'ops' } }, jwt, apiKeys: keys },
    functions: {
      basic: { validate: (user, password) => user === 'alice' && password === 'wonderland' ? ['reader'] : null },
      bearer: { auth: (token) => token === 'fn-token' ? ['ops'] : null },
      jwt
    },
    exact: { bearer: { svc: { token: TOKEN, tags: 'ops' } }, bearerType: 'Token', bearerCase: 'exact' }
  }
  const withKey = (header: string): string => header.replace('<key>', key).replace('<unknown key>', key.slice(0, -1) + (key.endsWith('A') ? 'B' : 'A'))
  for (const [name, options] of Object.entries(configs)) {
    const app = await build(options)
    t.teardown(() => app.close())
    for (const [config, what, header, status, who, message, challenge] of ROWS) {
      if (config !== name) continue
      const res = await app.inject({ url: '/me', headers: { authorization: withKey(header) } })
      const body = res.json()
      t.same([res.statusCode, body.code ?? body.identity, body.message ?? null, res.headers['www-authenticate'] ?? null], [status, who, message, challenge], `${name}: ${what}`)
    }
  }
})
