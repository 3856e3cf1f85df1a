import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import type { FastifyBaseLogger, FastifyRequest } from 'fastify'
import { HttpError } from '@fastify-gatehouse/core'
import { type ApiKeyStore, type UserStore } from '@fastify-gatehouse/auth'
import { FileApiKeyStore, FileUserStore } from '@fastify-gatehouse/files'
import { AppServer, RoutedApplication, route, type OidcProviderOptions } from '@fastify-gatehouse/server'

/** The demo's own routes. */
export class DemoApp extends RoutedApplication {
  @route('/')
  async home (request: FastifyRequest) {
    return {
      service: 'gatehouse demo',
      you: request.scope.auth,
      try: {
        'GET /_server/account': 'your account page: who you are, change your password, where you are signed in, sign out (sign in first)',
        'GET /admin': 'needs the admin tag: sign in at /_server/login_page, or send the printed API key as a bearer token',
        'GET /_server/users': 'the admin API (SUPERADMIN): curl -u admin:<the admin password>',
        'GET /boom': 'throws: a 500 that leaks nothing, and an ERROR access line',
        'GET /teapot': 'an HttpError'
      }
    }
  }

  @route('/admin', { authRule: 'admin' })
  async admin (request: FastifyRequest) {
    return { hello: request.scope.auth?.identity, via: request.scope.auth?.backend }
  }

  @route('/boom')
  async boom () {
    throw new Error('the demo route failed on purpose')
  }

  @route('/teapot')
  async teapot () {
    throw new HttpError(418, 'This server brews tea only')
  }
}

/** Where the demo keeps its users, keys, sessions and lockout counters in PostgreSQL. */
export interface DemoDatabase {
  /** `postgres://user@host:port/db`. */
  url: string
  /** The schema of the demo's tables. Default: `gatehouse`. */
  schema?: string
}

/** Options of {@link startDemo}. */
export interface DemoOptions {
  /** Folder of users.json and keys.json (without `database`). */
  dataDir: string
  /** Users, keys, sessions and lockout counters in PostgreSQL instead (the schema migrated on start). Default: none. */
  database?: DemoDatabase
  /** The admin's password; without one, a password is generated on first start. */
  adminPassword?: string
  logger?: boolean | FastifyBaseLogger
  /** The public origin (needed with `oidc`). */
  externalUrl?: string
  /** OpenID Providers by name (`serverApp.oidc`). */
  oidc?: Record<string, OidcProviderOptions>
  /** Allow plain-http issuers (the local provider on loopback). Default: false. */
  allowInsecureIssuers?: boolean
}

/** The demo server, and what its first start created (shown once). */
export interface Demo {
  server: AppServer
  generatedAdminPassword?: string
  apiKey?: string
  close: () => Promise<void>
}

/**
 * Builds the demo: AppServer with login on, file (or PostgreSQL) stores, the admin, a first API key.
 * D-SERVER-05: first-start secrets are printed once.
 */
export async function startDemo (options: DemoOptions): Promise<Demo> {
  const { users, tokens, close } = await openStores(options)
  try {
    const firstStart = await users.get('admin') === null
    const generatedAdminPassword = options.adminPassword === undefined && firstStart ? randomBytes(12).toString('base64url') : undefined
    const adminPassword = options.adminPassword ?? generatedAdminPassword
    const server = new AppServer({
      primary: new DemoApp(),
      users,
      tokens,
      // Basic with the users' passwords, so the admin API answers curl -u (D-SERVER-50).
      auth: { basic: { users } },
      // Sessions and lockout counters beside the users, shared by every instance.
      ...(options.database === undefined ? {} : { database: options.database }),
      ...(adminPassword === undefined ? {} : { adminPassword }),
      login: true,
      ...(options.externalUrl === undefined ? {} : { externalUrl: options.externalUrl }),
      ...(options.oidc === undefined ? {} : { serverApp: { oidc: options.oidc, allowInsecureIssuers: options.allowInsecureIssuers === true } }),
      middleware: { logging: { includeQuery: true } },
      logger: options.logger ?? false,
      debug: process.env.GATEHOUSE_DEBUG === '1'
    })
    try {
      await server.ready()
    } catch (err) {
      await server.close()
      throw err
    }
    // The demo's admin route asks for the tag "admin"; the bootstrap gives SUPERADMIN.
    const admin = await users.get('admin')
    if (admin !== null && !admin.tags.includes('admin')) await users.setTags('admin', [...admin.tags, 'admin'])
    const apiKey = (await tokens.list()).length === 0 ? (await tokens.issue({ label: 'demo-ci', tags: 'admin' })).key : undefined
    return {
      server,
      ...(generatedAdminPassword === undefined ? {} : { generatedAdminPassword }),
      ...(apiKey === undefined ? {} : { apiKey }),
      close: async () => { await server.close(); await close() }
    }
  } catch (err) {
    await close()
    throw err
  }
}

/**
 * The user and key stores: files in `dataDir`, or PostgreSQL tables (the
 * package loaded only then), the schema brought up to date on start.
 */
async function openStores (options: DemoOptions): Promise<{ users: UserStore, tokens: ApiKeyStore, close: () => Promise<void> }> {
  if (options.database === undefined) {
    const users = await FileUserStore.open(join(options.dataDir, 'users.json'))
    const tokens = await FileApiKeyStore.open(join(options.dataDir, 'keys.json'))
    return { users, tokens, close: async () => { await tokens.close() } }
  }
  const { PostgresApiKeyStore, PostgresUserStore } = await import('@fastify-gatehouse/postgres')
  const settings = { ...options.database, migrate: true }
  const users = await PostgresUserStore.connect(settings)
  const tokens = await PostgresApiKeyStore.connect(settings).catch(async (err: unknown) => { await users.close(); throw err })
  return { users, tokens, close: async () => { await tokens.close(); await users.close() } }
}
