import Fastify, { type FastifyInstance } from 'fastify'
import { middlewareChain, type Recipe } from '@fastify-gatehouse/core'
import { errorsPlugin } from '@fastify-gatehouse/errors'
import { authPlugin } from '@fastify-gatehouse/auth'
import { MemorySessionStore, sessionPlugin, type SessionOptions, type SessionRecord, type SessionStore, type SessionWriteCondition, type SessionWriteResult } from '@fastify-gatehouse/session'

/** The components the session tests' recipes name. */
export const components = [errorsPlugin, authPlugin, sessionPlugin]

/** A memory store that counts what the component asks of it. */
export class CountingStore extends MemorySessionStore {
  readonly calls = { get: 0, set: 0, touch: 0, destroy: 0 }
  override get (key: string): SessionRecord | null { this.calls.get++; return super.get(key) }
  override set (key: string, record: SessionRecord, loaded: SessionWriteCondition | null): SessionWriteResult { this.calls.set++; return super.set(key, record, loaded) }
  override touch (key: string, expiresAt: number): void { this.calls.touch++; super.touch(key, expiresAt) }
  override destroy (key: string): void { this.calls.destroy++; super.destroy(key) }
}

/** An app with errors, (optionally) auth and session, and routes that drive the session. */
export async function build (session: SessionOptions & { store?: SessionStore } = {}, auth?: Recipe['authMiddleware']): Promise<FastifyInstance> {
  const app = Fastify()
  await middlewareChain(app, { middleware: { session: session as Record<string, unknown> }, ...(auth === undefined ? {} : { authMiddleware: auth }) }, { components })
  app.post<{ Body: { identity: string, tags?: string } }>('/login', async (req) => {
    req.scope.session!.login(req.body.identity, req.body.tags ?? '')
    return { ok: true }
  })
  app.post('/logout', async (req) => { req.scope.session!.logout(); return { ok: true } })
  app.get('/whoami', async (req) => ({ auth: req.scope.auth }))
  app.get('/private', { authRule: 'member' }, async (req) => ({ hello: req.scope.auth?.identity }))
  app.post<{ Body: { value: unknown } }>('/put', async (req) => { req.scope.session!.set('k', req.body.value); return { ok: true } })
  app.get('/get', async (req) => ({ value: req.scope.session!.get('k') ?? null, exists: req.scope.session!.exists }))
  await app.ready()
  return app
}

/** The session cookie from a response, or undefined. */
export function sessionCookie (res: { headers: Record<string, unknown> }, name = 'session_id'): string | undefined {
  const header = res.headers['set-cookie']
  const all = Array.isArray(header) ? header : header === undefined ? [] : [String(header)]
  const line = all.find((c) => c.startsWith(`${name}=`))
  return line?.slice(name.length + 1).split(';')[0]
}
