import { extendOptions } from '@fastify-gatehouse/core'
import { MemoryApiKeyStore, MemoryUserStore, type ApiKeyStore, type AuthOptions, type ConfiguredUser, type LockoutStore, type UserStore } from '@fastify-gatehouse/auth'
import type { SessionStore } from '@fastify-gatehouse/session'
import { GATEHOUSE_SERVER_INVALID_OPTIONS } from '../errors.js'
import { SUPERADMIN } from '../server-app/admin-api.js'
import { openDatabaseStores, type DatabaseStores } from './database-stores.js'
import type { ResolvedServerOptions, SeededTokens } from './resolve-server-options.js'

/** What a server's build opens or makes from its resolved options: the stores, and auth's options with the API keys. */
export interface ServerStores {
  authMiddleware?: AuthOptions
  users?: UserStore
  tokens?: ApiKeyStore
  /** The session store, unless the caller's session options name one (`database`). */
  sessionStore?: SessionStore
  /** The lockout store, unless `serverApp.login.store` names one (`database`). */
  lockoutStore?: LockoutStore
  /** Closes what was opened here; run by `close()`, or at once when the build fails. */
  close?: () => Promise<void>
}

/**
 * Creates the identity `admin` with tag SUPERADMIN, or brings it back to
 * that (enabled, tagged, the password). A new hash (and credential stamp)
 * only when the password changed: setting it again would end the admin's
 * sessions at every boot (D-SESSION-12). Instances booting together on a
 * shared store may both find no admin: the one whose add loses the race
 * goes on as if it had found it.
 */
async function ensureAdmin (users: UserStore, password: string): Promise<void> {
  let admin = await users.get('admin')
  if (admin === null) {
    try {
      await users.add('admin', { password, tags: [SUPERADMIN] })
      return
    } catch (err) {
      admin = await users.get('admin')
      if (admin === null) throw err
    }
  }
  if (await users.verify('admin', password) === null) await users.setPassword('admin', password)
  if (!admin.tags.includes(SUPERADMIN)) await users.setTags('admin', [...admin.tags, SUPERADMIN])
  if (!admin.enabled) await users.setEnabled('admin', true)
}

/** The in-memory store of `users: { <identity>: { password | passwordHash, tags } }` (their keys checked by resolveServerOptions). */
async function seedUsers (entries: Readonly<Record<string, ConfiguredUser>>): Promise<MemoryUserStore> {
  const seeded = new MemoryUserStore()
  for (const [identity, user] of Object.entries(entries)) {
    try {
      await seeded.seed(identity, { ...user, tags: user?.tags ?? [] })
    } catch (err) {
      throw new GATEHOUSE_SERVER_INVALID_OPTIONS(`users.${identity}`, (err as Error).message, { cause: err })
    }
  }
  return seeded
}

/**
 * `adminPassword` on a store made from the options: the admin seeded like
 * the other configured users (the same hash on every instance), keeping
 * the tags a `users.admin` entry gave it.
 */
async function seedAdmin (seeded: MemoryUserStore, password: string): Promise<void> {
  const tags = (await seeded.get('admin'))?.tags ?? []
  await seeded.seed('admin', { password, tags: tags.includes(SUPERADMIN) ? tags : [...tags, SUPERADMIN] })
}

async function seedTokens (entries: SeededTokens): Promise<MemoryApiKeyStore> {
  const seeded = new MemoryApiKeyStore()
  for (const [label, token] of Object.entries(entries)) {
    try {
      await seeded.add(token?.key, { label, tags: token?.tags ?? [] })
    } catch (err) {
      throw new GATEHOUSE_SERVER_INVALID_OPTIONS(`tokens.${label}`, (err as Error).message, { cause: err })
    }
  }
  return seeded
}

// The PostgreSQL stores of `database`, for the roles the caller left open.
async function openDatabase (options: ResolvedServerOptions): Promise<DatabaseStores | undefined> {
  if (options.database === undefined) return undefined
  const session = (options.middleware.session ?? options.session) as { store?: unknown } | undefined
  return await openDatabaseStores(options.database.options, {
    users: options.users === undefined,
    tokens: options.tokens === undefined,
    sessions: typeof session !== 'object' || session === null || session.store === undefined,
    lockout: options.serverApp.login.store === undefined
  }, options.database.urlName)
}

async function makeStores (options: ResolvedServerOptions, database: DatabaseStores | undefined): Promise<ServerStores> {
  let users: UserStore | undefined
  // A store made here from the options: every instance given the same
  // options makes the same users, hashes and stamps (D-SESSION-27).
  let seeded: MemoryUserStore | undefined
  if (options.users === undefined) {
    users = database?.users ?? (options.adminPassword === undefined ? undefined : seeded = new MemoryUserStore())
  } else if ('store' in options.users) {
    users = options.users.store
  } else {
    users = seeded = await seedUsers(options.users.seed)
  }
  if (options.adminPassword !== undefined) {
    if (seeded === undefined) await ensureAdmin(users!, options.adminPassword)
    else await seedAdmin(seeded, options.adminPassword)
  }
  const tokens = options.tokens === undefined
    ? database?.tokens
    : 'store' in options.tokens ? options.tokens.store : await seedTokens(options.tokens.seed)
  let authMiddleware: AuthOptions | undefined
  if (options.auth !== undefined || tokens !== undefined) {
    // Handed over as given: the component checks it (one shape, DESIGN §10 / issue 14);
    // a config file's auth_middleware arrives checked and is not checked again (D-CHAIN-12).
    authMiddleware = extendOptions(options.auth ?? {}, tokens === undefined ? {} : { apiKeys: tokens }, 'auth') as AuthOptions
  }
  return {
    ...(authMiddleware === undefined ? {} : { authMiddleware }),
    ...(users === undefined ? {} : { users }),
    ...(tokens === undefined ? {} : { tokens }),
    ...(database?.sessions === undefined ? {} : { sessionStore: database.sessions }),
    ...(database?.lockout === undefined ? {} : { lockoutStore: database.lockout }),
    ...(database === undefined ? {} : { close: database.close })
  }
}

/**
 * Opens the database's stores (`database`), seeds the memory stores
 * (`users`, `tokens`) and brings the admin to `adminPassword`: the async
 * part of a build, from options already resolved. What was opened is
 * closed again when a later step fails.
 */
export async function openServerStores (options: ResolvedServerOptions): Promise<ServerStores> {
  const database = await openDatabase(options)
  try {
    return await makeStores(options, database)
  } catch (err) {
    await database?.close()
    throw err
  }
}
