import Fastify, { type FastifyInstance } from 'fastify'
import fastifyCookie from '@fastify/cookie'
import fastifySession from '@fastify/session'
import RedisStore from 'connect-redis'
import { Redis } from 'ioredis'
import { middlewareChain } from '@fastify-gatehouse/core'
import { errorsPlugin } from '@fastify-gatehouse/errors'
import { sessionPlugin, MemorySessionStore, type SessionStore } from '@fastify-gatehouse/session'
import { RedisSessionStore } from '@fastify-gatehouse/redis'
import type { Suite } from '../lib/suite.js'

// The components these recipes name.
const components = [errorsPlugin, sessionPlugin]

// Session-authenticated requests with sessions in Redis (127.0.0.1:6379):
// sign in once (POST /login), then GET /p with the session cookie; without a
// signed-in session /p is refused. Each server process uses its own key
// prefix and deletes its keys when it stops.
const body = { ok: true }
const SECRET = 'a-session-secret-that-is-at-least-32-characters-long'
const REDIS_URL = process.env.GATEHOUSE_BENCH_REDIS ?? 'redis://127.0.0.1:6379/0'
const prefix = (what: string) => `gatehouse-bench:${process.pid}:${what}:`

async function signIn (baseUrl: string): Promise<Record<string, string>> {
  const res = await fetch(`${baseUrl}/login`, { method: 'POST' })
  const cookies = res.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ')
  if (res.status !== 200 || cookies === '') throw new Error(`sign-in failed: ${res.status}`)
  const check = await fetch(`${baseUrl}/p`, { headers: { cookie: cookies } })
  if (check.status !== 200) throw new Error(`the session does not authenticate: ${check.status}`)
  return { cookie: cookies }
}

/** Deletes the keys under `keyPrefix` (bounded SCAN), then disconnects. */
async function cleanUp (client: Redis, keyPrefix: string): Promise<void> {
  let cursor = '0'
  for (let i = 0; i < 1000; i++) {
    const [next, keys] = await client.scan(cursor, 'MATCH', `${keyPrefix}*`, 'COUNT', 500)
    if (keys.length > 0) await client.del(...keys)
    cursor = next
    if (cursor === '0') break
  }
  client.disconnect()
}

async function gatehouse (store: SessionStore): Promise<FastifyInstance> {
  const app = Fastify()
  await middlewareChain(app, { middleware: { session: { store } } }, { components })
  app.post('/login', async (req) => { req.scope.session!.login('alice', 'member'); return { ok: true } })
  app.get('/p', { authRule: 'member' }, async () => body)
  return app
}

// settle: V8 was still compiling these after 12 000 requests (D-BENCH-10).
const scenario = (label: string, build: () => Promise<FastifyInstance>) => ({ label, build, prepare: signIn, request: { path: '/p' }, settle: true })

export const suite: Suite = {
  title: 'Session-authenticated requests (Redis session stores)',
  baseline: 'bare',
  scenarios: {
    bare: { label: 'bare Fastify (no session)', request: { path: '/p' }, build: async () => { const app = Fastify(); app.get('/p', async () => body); return app } },
    'gatehouse-memory': scenario('Gatehouse session (MemorySessionStore) + route rule', async () => await gatehouse(new MemorySessionStore())),
    'gatehouse-redis': scenario('Gatehouse session (RedisSessionStore) + route rule', async () => {
      const keys = prefix('sess')
      const store = new RedisSessionStore({ url: REDIS_URL, prefix: keys })
      await store.ready()
      const app = await gatehouse(store)
      app.addHook('onClose', async () => { await cleanUp(new Redis(REDIS_URL), keys); await store.close() })
      return app
    }),
    'peer-session-redis': scenario('peer: @fastify/session + connect-redis 7 (ioredis) + a check hook', async () => {
      const keys = prefix('peer')
      const client = new Redis(REDIS_URL)
      const app = Fastify()
      await app.register(fastifyCookie)
      await app.register(fastifySession, { secret: SECRET, cookie: { secure: false }, saveUninitialized: false, store: new RedisStore({ client, prefix: keys }) as never })
      app.post('/login', async (req) => { (req.session as unknown as { user: string }).user = 'alice'; return { ok: true } })
      app.get('/p', { onRequest: async (req, reply) => { if ((req.session as unknown as { user?: string }).user === undefined) return reply.code(403).send() } }, async () => body)
      app.addHook('onClose', async () => { await cleanUp(client, keys) })
      return app
    })
  }
}
