import { resolve } from 'node:path'
import { Type } from '@sinclair/typebox'
import { loadRecipe, type GatehouseConfig } from '@fastify-gatehouse/core'
import { passwordPolicySchema, resolvePasswordPolicy, type PasswordPolicy, type ResolvedPasswordPolicy } from '@fastify-gatehouse/auth'
import { allComponents } from '@fastify-gatehouse/components'
import { loginOptionsSchema } from '../server-app/options.js'
import { accountSettingSchema } from '../server-app/account/options.js'
import type { CliIo } from './io.js'
import { configStores, type ConfigStores } from './store-config.js'

/** The `server_app` section of a config file (snake_case in the file). */
export const serverAppSchema = Type.Object({
  login: Type.Optional(Type.Object({
    // The lockout numbers as PasswordMethod takes them.
    ...Type.Omit(loginOptionsSchema, ['store']).properties,
    /**
     * Where lockout counters live: `{ redis: 'redis://…' }` or `{ postgres:
     * 'postgres://…' }` (default: this process's memory). Checked by
     * configStores, with the other stores (store-config.ts).
     */
    store: Type.Optional(Type.Unknown())
  }, { additionalProperties: false })),
  /**
   * Users and API keys: a folder of users.json and keys.json (as for the
   * CLI's --store; a relative one is relative to the config file's folder),
   * or `{ postgres: 'postgres://…', schema?, table_prefix?, migrate? }`.
   * Checked by configStores (store-config.ts).
   * D-CLI-02, D-CLI-06.
   */
  store: Type.Optional(Type.Unknown()),
  /** The login surface (401 → login page). Default: on when a store is given. */
  loginSurface: Type.Optional(Type.Boolean()),
  /** The account endpoints: `{ fresh_for: 600 }`, or `false` to turn them off. Default: on with a store. */
  account: Type.Optional(accountSettingSchema),
  /**
   * AppServer's `passwordPolicy` (`min_length`, `max_length`): applied by
   * the server and by `gatehouse users add|passwd --config` to new
   * passwords and to $GATEHOUSE_ADMIN_PASSWORD.
   */
  passwordPolicy: Type.Optional(passwordPolicySchema)
}, { additionalProperties: false })

/** A config file as the CLI reads it. */
export interface ConfigFile {
  /** Its absolute path. */
  readonly path: string
  /** Its camelCase form, every section checked (`loadRecipe`). */
  readonly config: GatehouseConfig
  /** The stores it names, checked (nothing opened). */
  readonly stores: ConfigStores
  /** Its `server_app.password_policy` with the defaults applied. */
  readonly passwordPolicy: ResolvedPasswordPolicy
}

/**
 * Reads and checks a config file (`--config`, relative to the working
 * directory), its stores included, before anything opens: what `serve`
 * reads (the server resolves the rest, once: resolveServerOptions).
 */
export async function readConfigFile (io: CliIo, file: string): Promise<Omit<ConfigFile, 'passwordPolicy'>> {
  const path = resolve(io.cwd, file)
  const config = await loadRecipe(path, { components: allComponents, serverAppSchema, env: io.env })
  // Every store the file names, checked before anything opens (D-REDIS-05);
  // the session store sits under middleware.session (D-CONFIG-05).
  return { path, config, stores: await configStores(config, path) }
}

/**
 * {@link readConfigFile} and the file's password policy resolved: what
 * `users`, `keys` and `migrate` read (no server resolves it for them).
 */
export async function readConfig (io: CliIo, file: string): Promise<ConfigFile> {
  const read = await readConfigFile(io, file)
  // The loader checked its keys and bounds, naming them as written (min_length). D-SERVER-21.
  const passwordPolicy = resolvePasswordPolicy(read.config.serverApp?.passwordPolicy as PasswordPolicy | undefined, 'server_app.password_policy')
  return { ...read, passwordPolicy }
}
