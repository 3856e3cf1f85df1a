import type { FastifyInstance } from 'fastify'
import { MemoryUserStore } from '@fastify-gatehouse/auth'
import type { LockoutStore, UserStore } from '@fastify-gatehouse/auth'
import type { SessionStore } from '@fastify-gatehouse/session'
import { AppServer } from '@fastify-gatehouse/server'
import { hangSignal } from '../../../../test-helpers/wait.js'

const FAST = { N: 1024, r: 8, p: 1 }

export interface Instance { server: AppServer, base: string }

/** A user store with alice/alice-pass (tag member), to share between instances as a deployment shares one. */
export async function aliceStore (): Promise<MemoryUserStore> {
  const users = new MemoryUserStore({ scrypt: FAST })
  await users.add('alice', { password: 'alice-pass', tags: 'member' })
  return users
}

/**
 * One Gatehouse instance on a real port: the user store given (default: a
 * new {@link aliceStore}; instances of one deployment share one, as password
 * sessions are checked against it), a bearer token `ci-token` (tag member),
 * `GET /me` (open), `GET /orders` (rule `member`), `GET /reports` (rule
 * `admin`), sessions and lockout in the stores given.
 */
export async function startInstance (options: {
  sessionStore: SessionStore
  lockoutStore?: LockoutStore
  idleTtl?: number
  maxAttempts?: number
  users?: UserStore
  adminPassword?: string
  /** More routes, inside the chain. */
  routes?: (app: FastifyInstance) => void
}): Promise<Instance> {
  const users = options.users ?? await aliceStore()
  const server = new AppServer({
    logger: false,
    users,
    ...(options.adminPassword === undefined ? {} : { adminPassword: options.adminPassword }),
    auth: { bearer: { ci: { token: 'ci-token', tags: 'member' } } },
    session: { store: options.sessionStore, ...(options.idleTtl === undefined ? {} : { idleTtl: options.idleTtl, touchInterval: 0 }) },
    serverApp: { login: { maxAttempts: options.maxAttempts ?? 3, backoff: 30, ...(options.lockoutStore === undefined ? {} : { store: options.lockoutStore }) } }
  })
  server.register(async (app: FastifyInstance) => {
    app.get('/me', async (request) => ({ auth: request.scope.auth }))
    app.get('/orders', { config: { authRule: 'member' } }, async (request) => ({ for: request.scope.auth?.identity }))
    app.get('/reports', { config: { authRule: 'admin' } }, async (request) => ({ for: request.scope.auth?.identity }))
    options.routes?.(app)
  })
  const base = await server.serve('127.0.0.1', 0)
  return { server, base }
}

export async function login (base: string, identity: string, password: string): Promise<Response> {
  return await fetch(`${base}/_server/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ identity, password, return_session_id: true }),
    signal: hangSignal()
  })
}

export async function get (base: string, path: string, headers: Record<string, string> = {}): Promise<Response> {
  return await fetch(`${base}${path}`, { headers, signal: hangSignal() })
}

/** The `name=value` part of a response's session cookie. */
export function sessionCookie (response: Response): string {
  const line = response.headers.getSetCookie().find((l) => l.startsWith('session_id='))
  if (line === undefined) throw new Error('no session cookie')
  return line.split(';')[0]!
}
