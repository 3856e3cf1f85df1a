import Fastify, { type FastifyInstance } from 'fastify'
import basicAuth from '@fastify/basic-auth'
import bearerAuth from '@fastify/bearer-auth'
import fastifyJwt from '@fastify/jwt'
import { middlewareChain } from '@fastify-gatehouse/core'
import { errorsPlugin } from '@fastify-gatehouse/errors'
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { authPlugin, MemoryUserStore, sha256, type AuthOptions } from '@fastify-gatehouse/auth'
import { FileApiKeyStore } from '@fastify-gatehouse/files'
import type { Scenario, Suite } from '../lib/suite.js'
import { BASIC, BEARER, badSignature, freshHs256, pooledRs256, REPEATED_HS256, RS256_PUBLIC, SECRET } from './auth-tokens.js'

// The components these recipes name.
const components = [errorsPlugin, authPlugin]

const body = { ok: true }
const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

// A fixed API key, so that the load generator and the server agree on it:
// the server opens a key file written in the store's format (id + SHA-256).
const API_KEY = 'gak_00112233445566aa_benchmarkSecretPartThatIsLongEnough0123456'
async function keyStore (): Promise<FileApiKeyStore> {
  const dir = await mkdtemp(join(tmpdir(), 'gatehouse-bench-'))
  const now = new Date().toISOString()
  await writeFile(join(dir, 'keys.json'), JSON.stringify({
    version: 1,
    keys: [{ keyId: API_KEY.slice(4, 20), label: 'ci-bot', tags: ['reader'], enabled: true, expiresAt: null, createdAt: now, lastUsedAt: null, secretHash: `sha256$${sha256(API_KEY.slice(21))}` }]
  }), { mode: 0o600 })
  return FileApiKeyStore.open(join(dir, 'keys.json'))
}

// Verifiers of one algorithm, each for its own issuer; only the last one's
// secret signs the multi-verifier rows' tokens.
function manyVerifiers (n: number): NonNullable<AuthOptions['jwt']> {
  return Array.from({ length: n }, (_, i) => ({ name: `idp-${i}`, secret: i === n - 1 ? SECRET : `${SECRET}-other-${i}`, algorithm: 'HS256' as const, issuer: `https://idp-${i}.example`, tagsClaim: 'tags' }))
}

// n verifiers, the last one signing: a fresh token each request, and a
// token of the last issuer with a bad signature (issue 17, item 8).
function verifierRows (n: number): Record<string, Scenario> {
  const iss = `https://idp-${n - 1}.example`
  const bad = badSignature(freshHs256(iss))
  return {
    [`gh-jwt-${n}-last`]: scenario(`Gatehouse JWT HS256, ${n} verifier(s), the last matches, fresh token`, () => gatehouse({ jwt: manyVerifiers(n) }), { perRequest: () => bearer(freshHs256(iss)) }),
    [`gh-jwt-${n}-refused`]: refused(`Gatehouse JWT HS256, ${n} verifier(s), bad signature (401)`, () => gatehouse({ jwt: manyVerifiers(n) }), { headers: bearer(bad) })
  }
}

async function gatehouse (options: AuthOptions): Promise<FastifyInstance> {
  const app = Fastify()
  await middlewareChain(app, { authMiddleware: options as Record<string, unknown> }, { components })
  app.get('/p', { authRule: 'reader' }, async () => body)
  return app
}

const scenario = (label: string, build: () => Promise<FastifyInstance>, request: Scenario['request'] = {}): Scenario =>
  ({ label, build, request: { path: '/p', ...request } })

// Refused credentials (issue 17, item 8): what a caller sending garbage costs
// the server, against the accepted rows above. Each answers 401.
const refused = (label: string, build: () => Promise<FastifyInstance>, request: Scenario['request']): Scenario =>
  ({ ...scenario(label, build, request), expectStatus: 401 })
// The right length and alphabet, the wrong bytes: found by no lookup.
const WRONG_BASIC = `Basic ${Buffer.from('alice:wonderlanD').toString('base64')}`
const WRONG_BEARER = BEARER.slice(0, -1) + 'X'
const UNKNOWN_API_KEY = API_KEY.slice(0, -1) + 'X'
const BAD_SIGNATURE_HS256 = badSignature(REPEATED_HS256)
const HS256_MAIN = { name: 'main', secret: SECRET, algorithm: 'HS256', tagsClaim: 'tags' } as const

export const suite: Suite = {
  title: 'Authentication on a protected route',
  baseline: 'bare',
  scenarios: {
    bare: scenario('bare Fastify (no auth)', async () => {
      const app = Fastify()
      app.get('/p', async () => body)
      return app
    }),
    floor: scenario('floor: hand-written onRequest Map lookup', async () => {
      const callers = new Map([[`Bearer ${BEARER}`, { identity: 'svc' }]])
      const app = Fastify()
      app.addHook('onRequest', (req, reply, done) => {
        if (callers.get(req.headers.authorization ?? '') === undefined) { reply.code(401).send(); return }
        done()
      })
      app.get('/p', async () => body)
      return app
    }, { headers: bearer(BEARER) }),
    'gh-basic': scenario('Gatehouse basic', () => gatehouse({ basic: { alice: { password: 'wonderland', tags: 'reader' } } }), { headers: { authorization: BASIC } }),
    // The first request verifies (scrypt); every measured one is a cache hit re-checked with the store's standing.
    'gh-basic-store': scenario('Gatehouse basic, UserStore (memory), cached credential', async () => {
      const users = new MemoryUserStore()
      await users.add('alice', { password: 'wonderland', tags: 'reader' })
      return await gatehouse({ basic: { users } })
    }, { headers: { authorization: BASIC } }),
    'peer-basic': scenario('peer: @fastify/basic-auth', async () => {
      const app = Fastify()
      await app.register(basicAuth, {
        validate (username, password, _req, _reply, done) {
          if (username === 'alice' && password === 'wonderland') done()
          else done(new Error('Unauthorized'))
        }
      })
      app.addHook('onRequest', app.basicAuth)
      app.get('/p', async () => body)
      return app
    }, { headers: { authorization: BASIC } }),
    'gh-bearer': scenario('Gatehouse bearer', () => gatehouse({ bearer: { svc: { token: BEARER, tags: 'reader' } } }), { headers: bearer(BEARER) }),
    'gh-bearer-authn': scenario('Gatehouse bearer, authentication only (no route rule)', async () => {
      const app = Fastify()
      await middlewareChain(app, { authMiddleware: { bearer: { svc: { token: BEARER, tags: 'reader' } } } }, { components })
      app.get('/p', async () => body)
      return app
    }, { headers: bearer(BEARER) }),
    'peer-bearer': scenario('peer: @fastify/bearer-auth', async () => {
      const app = Fastify()
      await app.register(bearerAuth, { keys: new Set([BEARER]) })
      app.get('/p', async () => body)
      return app
    }, { headers: bearer(BEARER) }),
    'gh-apikey': scenario('Gatehouse API key (file store)', async () => gatehouse({ apiKeys: await keyStore() }), { headers: bearer(API_KEY) }),
    'gh-jwt-repeat': scenario('Gatehouse JWT HS256, same token', () => gatehouse({ jwt: [{ name: 'main', secret: SECRET, algorithm: 'HS256', tagsClaim: 'tags' }] }), { headers: bearer(REPEATED_HS256) }),
    'peer-jwt-repeat': scenario('peer: @fastify/jwt HS256, same token', async () => {
      const app = Fastify()
      await app.register(fastifyJwt, { secret: SECRET })
      app.addHook('onRequest', async (req) => { await req.jwtVerify() })
      app.get('/p', async () => body)
      return app
    }, { headers: bearer(REPEATED_HS256) }),
    'gh-jwt-fresh': scenario('Gatehouse JWT HS256, fresh token per request', () => gatehouse({ jwt: [{ name: 'main', secret: SECRET, algorithm: 'HS256', tagsClaim: 'tags' }] }), { perRequest: () => bearer(freshHs256()) }),
    'peer-jwt-fresh': scenario('peer: @fastify/jwt HS256, fresh token per request', async () => {
      const app = Fastify()
      await app.register(fastifyJwt, { secret: SECRET })
      app.addHook('onRequest', async (req) => { await req.jwtVerify() })
      app.get('/p', async () => body)
      return app
    }, { perRequest: () => bearer(freshHs256()) }),
    'gh-jwt-rs256': scenario('Gatehouse JWT RS256, 2000 distinct tokens, no cache', () => gatehouse({ jwt: [{ name: 'main', publicKey: RS256_PUBLIC, algorithm: 'RS256', tagsClaim: 'tags' }], jwtCache: { max: 0 } }), { perRequest: () => bearer(pooledRs256()) }),
    'peer-jwt-rs256': scenario('peer: @fastify/jwt RS256, same tokens, no cache', async () => {
      const app = Fastify()
      await app.register(fastifyJwt, { secret: { public: RS256_PUBLIC }, verify: { algorithms: ['RS256'] } })
      app.addHook('onRequest', async (req) => { await req.jwtVerify() })
      app.get('/p', async () => body)
      return app
    }, { perRequest: () => bearer(pooledRs256()) }),
    // What a refusal costs when nothing but the answer is done: the floor's
    // lookup misses and sends a 401 shaped like Gatehouse's (challenge, JSON).
    'floor-refused': refused('floor: hand-written onRequest Map lookup, unknown token (401 with a challenge and a JSON body)', async () => {
      const callers = new Map([[`Bearer ${BEARER}`, { identity: 'svc' }]])
      const app = Fastify()
      app.addHook('onRequest', (req, reply, done) => {
        if (callers.get(req.headers.authorization ?? '') === undefined) {
          reply.code(401).header('www-authenticate', 'Bearer realm="gatehouse", error="invalid_token", error_description="The token is not valid"')
            .send({ statusCode: 401, code: 'GATEHOUSE_AUTH_INVALID_TOKEN', error: 'Unauthorized', message: 'The token is not valid' })
          return
        }
        done()
      })
      app.get('/p', async () => body)
      return app
    }, { headers: bearer(WRONG_BEARER) }),
    'gh-basic-refused': refused('Gatehouse basic, wrong password (401)', () => gatehouse({ basic: { alice: { password: 'wonderland', tags: 'reader' } } }), { headers: { authorization: WRONG_BASIC } }),
    'gh-bearer-refused': refused('Gatehouse bearer, unknown token (401)', () => gatehouse({ bearer: { svc: { token: BEARER, tags: 'reader' } } }), { headers: bearer(WRONG_BEARER) }),
    'gh-apikey-refused': refused('Gatehouse API key, unknown key (401)', async () => gatehouse({ apiKeys: await keyStore() }), { headers: bearer(UNKNOWN_API_KEY) }),
    'gh-jwt-refused': refused('Gatehouse JWT HS256, bad signature (401)', () => gatehouse({ jwt: [HS256_MAIN] }), { headers: bearer(BAD_SIGNATURE_HS256) }),
    ...verifierRows(1),
    ...verifierRows(5),
    ...verifierRows(20)
  }
}
