import { MemoryApiKeyStore, MemoryUserStore, type ApiKeyStore, type AuthOptions, type JwtVerifierOptions, type UserStore } from '@fastify-gatehouse/auth'
import { SUPERADMIN } from '../server-app/admin-api.js'
import type { ServerAuthParts, ServerBase, ServerBaseOptions } from './server-base.js'

/** The server form of the auth options: JWT verifiers as a list (DESIGN §5). */
export interface ServerAuthConfig extends Omit<AuthOptions, 'jwt' | 'apiKeys'> {
  jwt?: readonly JwtVerifierOptions[]
}

/** What the auth capability takes. */
export interface AuthMixinOptions {
  /** Arms the auth component. */
  auth?: ServerAuthConfig
  /** A `UserStore`, or `{ <identity>: { password, tags } }` for an in-memory one (passwords hashed on the way in). */
  users?: UserStore | Readonly<Record<string, { password: string, tags?: string | readonly string[] }>>
  /** An `ApiKeyStore`, or `{ <label>: { key: 'gak_…', tags } }` for an in-memory one (keys hashed on the way in). */
  tokens?: ApiKeyStore | Readonly<Record<string, { key: string, tags?: string | readonly string[] }>>
  /** Creates or updates the identity `admin` with tag SUPERADMIN at boot. */
  adminPassword?: string
}

type ServerClass = new (...args: any[]) => ServerBase

const isStore = (value: unknown, method: string): boolean =>
  typeof value === 'object' && value !== null && typeof (value as Record<string, unknown>)[method] === 'function'

/**
 * Gives a server class its auth capability: `auth` (the component),
 * `users` and `tokens` (stores, or plain objects seeding memory stores) and
 * `adminPassword` (the SUPERADMIN bootstrap).
 */
export function AuthMixin<T extends ServerClass> (Base: T): T {
  return class WithAuth extends Base {
    protected override async resolveAuth (options: ServerBaseOptions & AuthMixinOptions): Promise<ServerAuthParts> {
      let users: UserStore | undefined
      if (options.users === undefined) {
        users = options.adminPassword === undefined ? undefined : new MemoryUserStore()
      } else if (isStore(options.users, 'verify')) {
        // Sessions are re-checked against standing() on every request.
        if (!isStore(options.users, 'standing')) throw new TypeError('users: a UserStore must implement standing(identity) (sessions follow their user)')
        users = options.users as UserStore
      } else {
        const seeded = new MemoryUserStore()
        for (const [identity, user] of Object.entries(options.users as Record<string, { password: string, tags?: string | readonly string[] }>)) {
          try {
            await seeded.add(identity, { password: user?.password, tags: user?.tags ?? [] })
          } catch (err) {
            throw new TypeError(`users.${identity}: ${(err as Error).message}`)
          }
        }
        users = seeded
      }
      if (options.adminPassword !== undefined) {
        if (typeof options.adminPassword !== 'string' || options.adminPassword.length < 8) throw new TypeError('adminPassword must be a string of at least 8 characters')
        const admin = await users!.get('admin')
        if (admin === null) {
          await users!.add('admin', { password: options.adminPassword, tags: [SUPERADMIN] })
        } else {
          // A new hash (and credential stamp) only when the password changed:
          // setting it again would end the admin's sessions at every boot.
          if (await users!.verify('admin', options.adminPassword) === null) await users!.setPassword('admin', options.adminPassword)
          if (!admin.tags.includes(SUPERADMIN)) await users!.setTags('admin', [...admin.tags, SUPERADMIN])
          if (!admin.enabled) await users!.setEnabled('admin', true)
        }
      }

      let tokens: ApiKeyStore | undefined
      if (options.tokens === undefined || isStore(options.tokens, 'verify')) {
        tokens = options.tokens as ApiKeyStore | undefined
      } else {
        const seeded = new MemoryApiKeyStore()
        for (const [label, token] of Object.entries(options.tokens as Record<string, { key: string, tags?: string | readonly string[] }>)) {
          try {
            await seeded.add(token?.key, { label, tags: token?.tags ?? [] })
          } catch (err) {
            throw new TypeError(`tokens.${label}: ${(err as Error).message}`)
          }
        }
        tokens = seeded
      }

      let authMiddleware: AuthOptions | undefined
      if (options.auth !== undefined || tokens !== undefined) {
        const { jwt, ...rest } = options.auth ?? {}
        if (jwt !== undefined && !Array.isArray(jwt)) throw new TypeError('auth.jwt is a list of verifiers in the server form')
        authMiddleware = {
          ...rest,
          ...(jwt === undefined ? {} : { jwt: Object.fromEntries(jwt.map((v, i) => { const { name, ...verifier } = v; return [name ?? String(i), verifier] })) }),
          ...(tokens === undefined ? {} : { apiKeys: tokens })
        }
      }
      return {
        ...(authMiddleware === undefined ? {} : { authMiddleware }),
        ...(users === undefined ? {} : { users }),
        ...(tokens === undefined ? {} : { tokens })
      }
    }
  }
}
