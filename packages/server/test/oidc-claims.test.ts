// The id_token's verified claims of an OIDC sign-in are kept with the
// session and given back on every later request as
// request.scope.auth.claims (frozen), by every session store, across a
// restart; a claim set too large for a session keeps the standard claims,
// or is refused; password sessions have none.
import { test, type Test } from 'tap'
import pino from 'pino'
import type { FastifyBaseLogger } from 'fastify'
import { MemoryUserStore } from '@fastify-gatehouse/auth'
import { AppServer, type AppServerOptions } from '@fastify-gatehouse/server'
import { MAX_SESSION_CLAIMS_BYTES, type SessionStore } from '@fastify-gatehouse/session'
import { migrate, PostgresSessionStore } from '@fastify-gatehouse/postgres'
import { RedisSessionStore } from '@fastify-gatehouse/redis'
import { CookieClient } from './helpers/cookie-client.js'
import { freePort, startIdp, type TestIdp } from './helpers/idp.js'
import { startRogueIdp, type RogueIdp } from './helpers/rogue-idp.js'
import { cleanPrefix, needRedis, PATIENT_TIMEOUTS, REDIS_URL, testPrefix } from '../../redis/test/helpers/redis.js'
import { needPostgres, testDatabase } from '../../postgres/test/helpers/postgres.js'

const redis = await needRedis()
const postgres = await needPostgres()

interface Rp { server: AppServer, base: string, port: number, raw: string[] }
interface Claims { claims: Record<string, unknown> | null, frozen: boolean, backend: string | null }

/** An AppServer on `port` with one OIDC provider, the user alice (password), and routes that show the caller's claims. */
async function startRp (t: Test, provider: { name: string, issuer: string, clientId: string, clientSecret: string, identityClaim?: string }, port: number, store?: SessionStore): Promise<Rp> {
  const base = `http://localhost:${port}`
  const raw: string[] = []
  const users = new MemoryUserStore({ scrypt: { N: 1024, r: 8, p: 1 } })
  await users.add('pat', { password: 'pat-password-1', tags: 'staff' })
  const { name, identityClaim, ...rest } = provider
  const server = new AppServer({
    externalUrl: `${base}/`,
    login: true,
    users,
    logger: pino({ level: 'debug' }, { write: (line: string) => { raw.push(line) } }) as FastifyBaseLogger,
    ...(store === undefined ? {} : { session: { store } }),
    serverApp: { oidc: { [name]: { ...rest, tags: 'staff', ...(identityClaim === undefined ? {} : { identityClaim }) } }, allowInsecureIssuers: true }
  } satisfies AppServerOptions)
  server.register(async (app) => {
    app.get('/claims', async (req): Promise<Claims> => ({ claims: req.scope.auth?.claims ?? null, frozen: Object.isFrozen(req.scope.auth?.claims), backend: req.scope.auth?.backend ?? null }))
    app.get('/mutate', async (req) => {
      const claims = req.scope.auth!.claims as Record<string, unknown>
      try {
        claims.sub = 'admin'
        return { changed: claims.sub }
      } catch (err) {
        return { thrown: (err as Error).name, sub: claims.sub }
      }
    })
    app.get('/whoami', async (req) => ({ auth: req.scope.auth }))
  })
  await server.serve('localhost', port)
  t.teardown(() => server.close())
  return { server, base, port, raw }
}

/** oidc-provider and a relying party for it on a port of its own. */
async function withLocalIdp (t: Test, options: { identityClaim?: string, store?: SessionStore } = {}): Promise<{ rp: Rp, idp: TestIdp }> {
  const port = await freePort()
  const idp = await startIdp([`http://localhost:${port}/_server/auth/oidc:local/callback`])
  t.teardown(() => idp.close())
  const rp = await startRp(t, { name: 'local', issuer: idp.issuer, clientId: 'gatehouse', clientSecret: 'gatehouse-client-secret', identityClaim: options.identityClaim }, port, options.store)
  return { rp, idp }
}

/** Start → oidc-provider's login (and consent) forms → callback → `next`: the last response. */
async function signIn (client: CookieClient, rp: Rp, next = '/claims'): Promise<Response> {
  const start = await client.request(`${rp.base}/_server/auth/oidc:local/start?next=${encodeURIComponent(next)}`)
  let { url, response } = await client.follow(start.headers.get('location')!)
  ;({ url, response } = await client.follow(url, { form: { prompt: 'login', login: 'alice', password: 'any' } }))
  if (url.includes('/interaction/')) ({ response } = await client.follow(url, { form: { prompt: 'consent' } }))
  return response
}

const claimsOf = async (client: CookieClient, base: string): Promise<Claims> => await (await client.request(`${base}/claims`, { accept: 'application/json' })).json() as Claims

test('a real sign-in: the id_token\'s claims on every later request, frozen, without the protocol-only ones, not in toJSON or /account/me', async (t) => {
  const { rp, idp } = await withLocalIdp(t)
  const client = new CookieClient()
  const landed = await signIn(client, rp)
  t.equal(landed.status, 200, 'landed on /claims')
  const first = await landed.json() as Claims
  t.equal(first.backend, 'session')
  const { claims } = first
  t.match(claims, { iss: idp.issuer, sub: 'alice', aud: 'gatehouse', auth_time: Number, iat: Number, exp: Number }, 'the verified id_token claims')
  for (const name of ['nonce', 'at_hash', 'c_hash', 's_hash']) t.notOk(Object.hasOwn(claims!, name), `no ${name}`)
  t.equal(first.frozen, true)
  t.same(await claimsOf(client, rp.base), first, 'the same on the next request')
  t.same(await (await client.request(`${rp.base}/mutate`, { accept: 'application/json' })).json(), { thrown: 'TypeError', sub: 'alice' }, 'a route that writes to them gets a TypeError')
  t.same(await (await client.request(`${rp.base}/whoami`, { accept: 'application/json' })).json(), { auth: { identity: 'alice', tags: ['staff'], backend: 'session' } }, 'toJSON unchanged')
  const me = await (await client.request(`${rp.base}/_server/account/me`, { accept: 'application/json' })).json() as Record<string, unknown>
  t.same(Object.keys(me).sort(), ['backend', 'identity', 'session', 'tags'], '/account/me shows no claims')
  t.ok(rp.raw.length > 0, 'lines were logged')
  t.notOk(rp.raw.some((line) => line.includes('auth_time') || line.includes('"sub"')), 'none holds the claims')
})

test('identityClaim email: the userinfo answer the callback asked for is merged under the id_token\'s claims', async (t) => {
  const { rp } = await withLocalIdp(t, { identityClaim: 'email' })
  const client = new CookieClient()
  const { claims } = await (await signIn(client, rp)).json() as Claims
  t.match(claims, { sub: 'alice', email: 'alice@example.com', email_verified: true, name: 'Alice', aud: 'gatehouse', auth_time: Number })
})

test('password sessions have null claims', async (t) => {
  const { rp } = await withLocalIdp(t)
  const res = await fetch(`${rp.base}/_server/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ identity: 'pat', password: 'pat-password-1' }) })
  t.equal(res.status, 200)
  const cookie = res.headers.getSetCookie()[0]!.split(';')[0]!
  t.same(await (await fetch(`${rp.base}/claims`, { headers: { cookie } })).json(), { claims: null, frozen: true, backend: 'session' })
})

/** Signs in on one server, closes it, starts another on the same port and store: the claims are still there. */
async function survivesRestart (t: Test, open: () => Promise<SessionStore & { close: () => Promise<void> }>): Promise<void> {
  const port = await freePort()
  const idp = await startIdp([`http://localhost:${port}/_server/auth/oidc:local/callback`])
  t.teardown(() => idp.close())
  const provider = { name: 'local', issuer: idp.issuer, clientId: 'gatehouse', clientSecret: 'gatehouse-client-secret' }
  const client = new CookieClient()
  const firstStore = await open()
  const first = await startRp(t, provider, port, firstStore)
  const before = await (await signIn(client, first)).json() as Claims
  t.match(before.claims, { sub: 'alice', iss: idp.issuer, auth_time: Number })
  await first.server.close()
  await firstStore.close()

  const store = await open()
  t.teardown(() => store.close())
  const second = await startRp(t, provider, port, store)
  t.equal(second.base, first.base, 'the same address')
  t.same(await claimsOf(client, second.base), before, 'the claims after a restart')
  t.same(await (await client.request(`${second.base}/mutate`, { accept: 'application/json' })).json(), { thrown: 'TypeError', sub: 'alice' }, 'frozen')
}

test('a Redis session store keeps the claims across a restart', redis, async (t) => {
  const prefix = testPrefix('claims')
  t.teardown(() => cleanPrefix(prefix))
  await survivesRestart(t, async () => await RedisSessionStore.connect({ url: REDIS_URL, ...PATIENT_TIMEOUTS, prefix }))
})

test('a PostgreSQL session store keeps the claims across a restart (no new column: the record\'s JSON)', postgres, async (t) => {
  const db = await testDatabase()
  t.teardown(db.drop)
  await migrate({ url: db.url })
  await survivesRestart(t, async () => await PostgresSessionStore.connect({ url: db.url, poolSize: 2 }))
})

// A controllable provider that puts whatever claims the test asks for in the id_token.
async function rogue (t: Test): Promise<{ idp: RogueIdp, rp: Rp }> {
  const port = await freePort()
  const idp = await startRogueIdp(`http://localhost:${port}/_server/auth/oidc:rogue/callback`)
  t.teardown(() => idp.close())
  const rp = await startRp(t, { name: 'rogue', issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret }, port)
  return { idp, rp }
}

const warnings = (rp: Rp): string[] => rp.raw.map((line) => JSON.parse(line) as { level: number, msg: string }).filter((l) => l.level === 40).map((l) => l.msg)

test(`an id_token whose claims take more than ${MAX_SESSION_CLAIMS_BYTES} bytes: the standard claims are kept, the others dropped and named in a warning`, async (t) => {
  const { idp, rp } = await rogue(t)
  const groups = Array.from({ length: 200 }, (_v, i) => `group-private-${String(i).padStart(4, '0')}-${'g'.repeat(20)}`)
  idp.misbehave.claims = { groups, roles: ['admin'], auth_time: Math.floor(Date.now() / 1000), name: 'Alice', at_hash: 'abc' }
  const client = new CookieClient()
  const { response } = await client.follow(`${rp.base}/_server/auth/oidc:rogue/start?next=%2Fclaims`)
  t.equal(response.status, 200, 'signed in')
  const { claims } = await response.json() as Claims
  t.same(Object.keys(claims!).sort(), ['aud', 'auth_time', 'email', 'email_verified', 'iat', 'exp', 'iss', 'name', 'sub'].sort(), 'the standard claims only')
  t.match(claims, { sub: 'alice', email: 'alice@example.com', name: 'Alice' })
  const warned = warnings(rp).filter((m) => m.startsWith('oidc:rogue: the claims take '))
  t.equal(warned.length, 1)
  t.match(warned[0], /^oidc:rogue: the claims take \d+ bytes as JSON, more than a session keeps \(4096\): kept the standard ones, dropped 2 \(groups, roles\)$/)
  t.notOk(rp.raw.some((line) => line.includes('group-private-')), 'no claim value logged')
})

test('claims still too large with the standard ones alone, or nested too deeply: the sign-in is refused with a page, no session', async (t) => {
  const { idp, rp } = await rogue(t)
  let deep: unknown = 'x'
  for (let i = 0; i < 40; i++) deep = { deep }
  for (const [what, claims, cause] of [
    ['a huge name', { name: `Alice ${'n'.repeat(5000)}` }, /^oidc:rogue: callback refused: the standard claims alone take \d+ bytes as JSON, more than a session keeps \(4096\)$/],
    ['a claim nested 40 deep', { org: deep }, /^oidc:rogue: callback refused: the claims are nested more deeply than an avatar takes$/]
  ] as const) {
    idp.misbehave.claims = claims
    const client = new CookieClient()
    const before = rp.raw.length
    const { response } = await client.follow(`${rp.base}/_server/auth/oidc:rogue/start?next=%2Fclaims`)
    t.equal(response.status, 400, `${what}: refused`)
    t.equal(response.headers.get('content-type'), 'text/html; charset=utf-8')
    t.match(await response.text(), '<p id="error" role="alert">The identity provider sent more about you than this server can keep</p>')
    const logged = warnings({ ...rp, raw: rp.raw.slice(before) })
    t.ok(logged.some((m) => cause.test(m)), `${what}: the cause logged`)
    t.notOk(rp.raw.slice(before).some((line) => line.includes('nnnnnnnnnn')), 'no claim value logged')
    t.same(await claimsOf(client, rp.base), { claims: null, frozen: true, backend: null }, `${what}: nobody signed in`)
  }
})
