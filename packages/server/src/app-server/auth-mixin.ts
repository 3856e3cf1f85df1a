import type { TObject } from '@sinclair/typebox'
import { extendOptions } from '@fastify-gatehouse/core'
import {
  MemoryApiKeyStore, MemoryUserStore, passwordPolicyDefaults, passwordProblem, resolvePasswordPolicy, type ApiKeyStore, type AuthOptions,
  type ConfiguredUser, type ResolvedPasswordPolicy, type UserStore
} from '@fastify-gatehouse/auth'
import { GATEHOUSE_SERVER_INVALID_OPTIONS } from '../errors.js'
import { SUPERADMIN } from '../server-app/admin-api.js'
import { authMixinOptionsSchema, withOptions, type AuthMixinOptions, type ServerBaseOptions } from './options.js'
import { checkDatabaseOption, openDatabaseStores, type DatabaseStores } from './database-stores.js'
import type { ServerAuthParts, ServerBase } from './server-base.js'

export type { AuthMixinOptions } from './options.js'

/**
 * The auth options of AppServer: the auth component's, in the same shape
 * (JWT verifiers a list, each with a name), without `apiKeys` (see `tokens`).
 */
export type ServerAuthConfig = Omit<AuthOptions, 'apiKeys'>

/**
 * Checks the SUPERADMIN bootstrap password against the password policy,
 * as the identity `admin`; `name` is how the caller gave it
 * (`adminPassword`, `$GATEHOUSE_ADMIN_PASSWORD`). Throws
 * `GATEHOUSE_SERVER_INVALID_OPTIONS` naming it and the rule broken, never
 * showing the value.
 * D-PASSWORD-04: at every boot, even when the stored admin has it already.
 */
export function checkAdminPassword (value: unknown, name: string, policy: ResolvedPasswordPolicy = passwordPolicyDefaults): string {
  if (typeof value !== 'string') throw new GATEHOUSE_SERVER_INVALID_OPTIONS(name, 'must be a string')
  const problem = passwordProblem(value, 'admin', policy)
  if (problem !== null) throw new GATEHOUSE_SERVER_INVALID_OPTIONS(name, `${problem.message} (rule: ${problem.rule})`)
  return value
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

const SEEDED_KEYS: ReadonlySet<string> = new Set(['password', 'passwordHash', 'tags'])

/** The in-memory store of `users: { <identity>: { password | passwordHash, tags } }`. */
async function seedUsers (entries: Record<string, ConfiguredUser>): Promise<MemoryUserStore> {
  const seeded = new MemoryUserStore()
  for (const [identity, user] of Object.entries(entries)) {
    // A typo (`tag`) must not seed a user without the tags it meant.
    const unknown = typeof user === 'object' && user !== null ? Object.keys(user).find((key) => !SEEDED_KEYS.has(key)) : undefined
    if (unknown !== undefined) throw new GATEHOUSE_SERVER_INVALID_OPTIONS(`users.${identity}.${unknown}`, 'unknown key (known: password, passwordHash, tags)')
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

type ServerClass = new (...args: any[]) => ServerBase

const isStore = (value: unknown, method: string): boolean =>
  typeof value === 'object' && value !== null && typeof (value as Record<string, unknown>)[method] === 'function'

/**
 * Gives a server class its auth capability: `auth` (the component),
 * `users` and `tokens` (stores, or plain objects seeding memory stores) and
 * `adminPassword` (the SUPERADMIN bootstrap), and `passwordPolicy` (what
 * a new password must be: the admin password, the admin API's, the account's).
 * D-SERVER-04: a class mixin, the TypeScript shape of the spec's mixin.
 */
export function AuthMixin<T extends ServerClass> (Base: T): T {
  return class WithAuth extends Base {
    protected override get optionsSchema (): TObject {
      return withOptions(super.optionsSchema, authMixinOptionsSchema)
    }

    protected override async resolveAuth (options: ServerBaseOptions & AuthMixinOptions): Promise<ServerAuthParts> {
      // D-SERVER-21: checked before the database opens, so a bad policy or admin password stops the boot with nothing to close.
      const passwordPolicy = resolvePasswordPolicy(options.passwordPolicy, 'passwordPolicy')
      if (options.adminPassword !== undefined) checkAdminPassword(options.adminPassword, 'adminPassword', passwordPolicy)
      const database = options.database === undefined ? undefined : await this.#openDatabase(options)
      try {
        return { ...await this.#resolveAuth(options, database), passwordPolicy }
      } catch (err) {
        await database?.close()
        throw err
      }
    }

    // The PostgreSQL stores of `database`, for the roles the caller left open.
    async #openDatabase (options: ServerBaseOptions & AuthMixinOptions): Promise<DatabaseStores> {
      const database = await checkDatabaseOption(options.database)
      for (const role of ['users', 'tokens'] as const) {
        if (options[role] !== undefined && !isStore(options[role], 'verify')) {
          throw new GATEHOUSE_SERVER_INVALID_OPTIONS(role, `seeded ${role} would live in memory beside database; give a store, or add them with \`gatehouse ${role === 'users' ? 'users add' : 'keys issue'} --database\` or the admin API`)
        }
      }
      const session = (options.middleware?.session ?? options.session) as { store?: unknown } | undefined
      return await openDatabaseStores(database, {
        users: options.users === undefined,
        tokens: options.tokens === undefined,
        sessions: typeof session !== 'object' || session === null || session.store === undefined,
        lockout: options.serverApp?.login?.store === undefined
      })
    }

    async #resolveAuth (options: ServerBaseOptions & AuthMixinOptions, database: DatabaseStores | undefined): Promise<ServerAuthParts> {
      let users: UserStore | undefined
      // A store made here from the options: every instance given the same
      // options makes the same users, hashes and stamps (D-SESSION-27).
      let seeded: MemoryUserStore | undefined
      if (options.users === undefined) {
        users = database?.users ?? (options.adminPassword === undefined ? undefined : seeded = new MemoryUserStore())
      } else if (isStore(options.users, 'verify')) {
        // Sessions are re-checked against standing() on every request (D-SESSION-11).
        if (!isStore(options.users, 'standing')) throw new GATEHOUSE_SERVER_INVALID_OPTIONS('users', 'a UserStore must implement standing(identity) (sessions follow their user)')
        users = options.users as UserStore
      } else {
        users = seeded = await seedUsers(options.users as Record<string, ConfiguredUser>)
      }
      if (options.adminPassword !== undefined) {
        if (seeded === undefined) await ensureAdmin(users!, options.adminPassword)
        else await seedAdmin(seeded, options.adminPassword)
      }

      let tokens: ApiKeyStore | undefined
      if (options.tokens === undefined || isStore(options.tokens, 'verify')) {
        tokens = (options.tokens as ApiKeyStore | undefined) ?? database?.tokens
      } else {
        const seeded = new MemoryApiKeyStore()
        for (const [label, token] of Object.entries(options.tokens as Record<string, { key: string, tags?: string | readonly string[] }>)) {
          try {
            await seeded.add(token?.key, { label, tags: token?.tags ?? [] })
          } catch (err) {
            throw new GATEHOUSE_SERVER_INVALID_OPTIONS(`tokens.${label}`, (err as Error).message, { cause: err })
          }
        }
        tokens = seeded
      }

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
  }
}
