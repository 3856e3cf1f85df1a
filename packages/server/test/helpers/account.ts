import type { FastifyInstance } from 'fastify'
import { MemoryApiKeyStore, MemoryUserStore, type UserStore } from '@fastify-gatehouse/auth'
import type { SessionStore } from '@fastify-gatehouse/session'
import { AppServer, type AccountOptions, type AppServerOptions } from '@fastify-gatehouse/server'
import { hangSignal } from '../../../../test-helpers/wait.js'
import { basic, hs256 } from './credentials.js'

export const FAST = { N: 1024, r: 8, p: 1 }
export const ADMIN_PASSWORD = 'operator-key-0123'
export const JWT_SECRET = 'j'.repeat(40)
/** An API key labelled alice (a separate principal from the user alice). */
export const ALICE_KEY = `gak_00000000000000a1_${'k'.repeat(43)}`
/** A new password the default policy accepts. */
export const NEW_PASSWORD = 'violet-kestrel-2931'

/** The callers that are not users: each with the Authorization header it signs in with. */
export const NOT_USERS: ReadonlyArray<readonly [string, string]> = [
  ['an API key', `Bearer ${ALICE_KEY}`],
  ['a static bearer token', 'Bearer ci-token'],
  ['a JWT', `Bearer ${hs256({ sub: 'alice', exp: Math.floor(Date.now() / 1000) + 86_400, auth_time: Math.floor(Date.now() / 1000) }, JWT_SECRET)}`],
  ['Basic credentials', basic('basil', 'basil-pass')]
]

/** Users alice/alice-pass (member) and bob/bob-pass-1, in a fast-hashing memory store. */
export async function accountUsers (): Promise<MemoryUserStore> {
  const users = new MemoryUserStore({ scrypt: FAST })
  await users.add('alice', { password: 'alice-pass', tags: 'member' })
  await users.add('bob', { password: 'bob-pass-1', tags: 'member' })
  return users
}

export interface AccountServerOptions {
  users?: UserStore
  sessionStore?: SessionStore
  login?: boolean
  maxAttempts?: number
  addressMaxAttempts?: number
  account?: AccountOptions | false
  idleTtl?: number
  absoluteTtl?: number
  /** Routes of the test's own, inside the chain. */
  routes?: (app: FastifyInstance) => void
  /** AppServer's `middleware` option. */
  middleware?: AppServerOptions['middleware']
}

/**
 * An AppServer with the users above, the admin, an API key labelled alice,
 * a static bearer token, a JWT verifier and a Basic user; `GET /whoami`
 * (open) and `POST /test/oidc-login` (signs `carol` in as an OIDC method
 * would: `via: 'oidc:test'`).
 */
export async function accountServer (options: AccountServerOptions = {}): Promise<AppServer> {
  const tokens = new MemoryApiKeyStore()
  await tokens.add(ALICE_KEY, { label: 'alice', tags: ['member'] })
  const server = new AppServer({
    logger: false,
    users: options.users ?? await accountUsers(),
    tokens,
    adminPassword: ADMIN_PASSWORD,
    login: options.login ?? false,
    ...(options.middleware === undefined ? {} : { middleware: options.middleware }),
    auth: {
      basic: { basil: { password: 'basil-pass', tags: 'member' } },
      bearer: { ci: { token: 'ci-token', tags: 'member' } },
      jwt: [{ name: 'idp', secret: JWT_SECRET, algorithm: 'HS256' }]
    },
    session: {
      ...(options.sessionStore === undefined ? {} : { store: options.sessionStore }),
      ...(options.idleTtl === undefined ? {} : { idleTtl: options.idleTtl }),
      ...(options.absoluteTtl === undefined ? {} : { absoluteTtl: options.absoluteTtl })
    },
    serverApp: {
      login: { maxAttempts: options.maxAttempts ?? 3, backoff: 30, ...(options.addressMaxAttempts === undefined ? {} : { addressMaxAttempts: options.addressMaxAttempts }) },
      ...(options.account === undefined ? {} : { account: options.account })
    }
  } satisfies AppServerOptions)
  server.register(async (app: FastifyInstance) => {
    app.get('/whoami', async (request) => ({ auth: request.scope.auth }))
    // A write to an anonymous session: a session that exists before any sign-in.
    app.post('/test/anonymous-write', async (request) => {
      request.scope.session!.set('cart', ['tea'])
      return { ok: true }
    })
    app.post('/test/oidc-login', async (request) => {
      request.scope.session!.login('carol', ['member'], { via: 'oidc:test' })
      return { ok: true }
    })
    options.routes?.(app)
  })
  return server
}

/** The `session_id=…` pair of a Set-Cookie list, or undefined. */
export function cookieFrom (setCookie: string | string[] | undefined): string | undefined {
  const lines = setCookie === undefined ? [] : Array.isArray(setCookie) ? setCookie : [setCookie]
  return lines.find((line) => line.startsWith('session_id=') && !/Max-Age=0/i.test(line))?.split(';')[0]
}

/** Signs in through inject; resolves with the session cookie. */
export async function injectSignIn (server: AppServer, identity: string, password: string, agent = 'test-agent'): Promise<string> {
  const res = await server.inject({ method: 'POST', url: '/_server/login', payload: { identity, password }, headers: { 'user-agent': agent } })
  const cookie = cookieFrom(res.headers['set-cookie'])
  if (res.statusCode !== 200 || cookie === undefined) throw new Error(`sign-in of ${identity} failed: ${res.statusCode} ${res.body}`)
  return cookie
}

/** Signs in over a socket; resolves with the session cookie. */
export async function fetchSignIn (base: string, identity: string, password: string, agent = 'test-agent'): Promise<string> {
  const res = await fetch(`${base}/_server/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'user-agent': agent },
    body: JSON.stringify({ identity, password }),
    signal: hangSignal()
  })
  const cookie = cookieFrom(res.headers.getSetCookie())
  if (res.status !== 200 || cookie === undefined) throw new Error(`sign-in of ${identity} failed: ${res.status}`)
  return cookie
}

/** A JSON request over a socket (`body` as JSON when given). */
export async function call (base: string, method: string, path: string, headers: Record<string, string> = {}, body?: unknown): Promise<Response> {
  return await fetch(`${base}${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: hangSignal()
  })
}

/** Who `cookie` is on `base` (`GET /whoami`): the identity, or null when anonymous. */
export async function whoIs (base: string, cookie: string): Promise<string | null> {
  const res = await call(base, 'GET', '/whoami', { cookie })
  return ((await res.json()) as { auth: { identity: string } | null }).auth?.identity ?? null
}

/** The 22-character handle of the session `cookie` (from /account/me). */
export async function handleOf (server: AppServer, cookie: string): Promise<string> {
  const res = await server.inject({ url: '/_server/account/me', headers: { cookie } })
  const handle = res.json().session?.handle as string | undefined
  if (handle === undefined) throw new Error(`no session handle: ${res.statusCode} ${res.body}`)
  return handle
}
