import Fastify, { type FastifyInstance } from 'fastify'
import fastifyCookie from '@fastify/cookie'
import fastifySession from '@fastify/session'
import fastifySecureSession from '@fastify/secure-session'
import { middlewareChain } from '@fastify-gatehouse/core'
import { errorsPlugin } from '@fastify-gatehouse/errors'
import { sessionPlugin } from '@fastify-gatehouse/session'
import type { Suite } from '../lib/suite.js'

// The components these recipes name.
const components = [errorsPlugin, sessionPlugin]

// A session-authenticated protected route: sign in once (POST /login), then
// GET /p with the session cookie; without a signed-in session /p is refused.
const body = { ok: true }
const SECRET = 'a-session-secret-that-is-at-least-32-characters-long'
const KEY = Buffer.alloc(32, 7)

async function signIn (baseUrl: string): Promise<Record<string, string>> {
  const res = await fetch(`${baseUrl}/login`, { method: 'POST' })
  const cookies = res.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ')
  if (res.status !== 200 || cookies === '') throw new Error(`sign-in failed: ${res.status}`)
  const check = await fetch(`${baseUrl}/p`, { headers: { cookie: cookies } })
  if (check.status !== 200) throw new Error(`the session does not authenticate: ${check.status}`)
  return { cookie: cookies }
}

// settle: V8 was still compiling these after 12 000 requests (D-BENCH-10).
const scenario = (label: string, build: () => Promise<FastifyInstance>) => ({ label, build, prepare: signIn, request: { path: '/p' }, settle: true })

export const suite: Suite = {
  title: 'Session-authenticated requests (memory stores)',
  baseline: 'bare',
  scenarios: {
    bare: { label: 'bare Fastify (no session)', request: { path: '/p' }, build: async () => { const app = Fastify(); app.get('/p', async () => body); return app } },
    gatehouse: scenario('Gatehouse session (MemorySessionStore) + route rule', async () => {
      const app = Fastify()
      await middlewareChain(app, { middleware: { session: true } }, { components })
      app.post('/login', async (req) => { req.scope.session!.login('alice', 'member'); return { ok: true } })
      app.get('/p', { authRule: 'member' }, async () => body)
      return app
    }),
    'peer-session': scenario('peer: @fastify/session (MemoryStore) + a check hook', async () => {
      const app = Fastify()
      await app.register(fastifyCookie)
      await app.register(fastifySession, { secret: SECRET, cookie: { secure: false }, saveUninitialized: false })
      app.post('/login', async (req) => { (req.session as unknown as { user: string }).user = 'alice'; return { ok: true } })
      app.get('/p', { onRequest: async (req, reply) => { if ((req.session as unknown as { user?: string }).user === undefined) return reply.code(403).send() } }, async () => body)
      return app
    }),
    'peer-secure-session': scenario('peer: @fastify/secure-session (encrypted cookie) + a check hook', async () => {
      const app = Fastify()
      await app.register(fastifySecureSession, { key: KEY, cookie: { path: '/', httpOnly: true } })
      app.post('/login', async (req) => { req.session.set('user' as never, 'alice' as never); return { ok: true } })
      app.get('/p', { onRequest: async (req, reply) => { if (req.session.get('user' as never) === undefined) return reply.code(403).send() } }, async () => body)
      return app
    })
  }
}
