import { sessionDefaults, type SessionStore } from '@fastify-gatehouse/session'
import { isPlainObject } from '@fastify-gatehouse/core'
import { readConfig } from './config-file.js'
import { databaseUrl, DATABASE_ENV } from './database-flag.js'
import { postgresPackage, redisPackage } from './drivers.js'
import { UsageError, type CliIo } from './io.js'
import { checkStoreFlags, type StoreFlags } from './store-target.js'
import type { PostgresStoreConfig, RedisStoreConfig } from './store-config.js'

/** The session store the servers share, as the command's flags name it, and their lifetimes. */
export interface SharedSessions {
  readonly store: RedisStoreConfig | PostgresStoreConfig
  /** The servers' idle lifetime, in seconds (a config file's `middleware.session.idle_ttl`, else the default): for "last seen". */
  readonly idleTtl: number
  readonly absoluteTtl: number
}

/** Why a command that needs the shared session store has none: its one line. */
export const NO_SHARED_SESSIONS = 'needs the session store the servers share (Redis or PostgreSQL): give --config with middleware.session.store or a PostgreSQL server_app.store, or --database / ' +
  `$${DATABASE_ENV}; sessions kept in a server's memory end through its admin API (POST /_server/users/<identity>/signout)`

function seconds (value: unknown, fallback: number): number {
  return typeof value === 'number' ? value : fallback
}

/**
 * The session store of the servers a `users` command works for, or
 * undefined when the flags name none: `--config` (its
 * `middleware.session.store`, else its `server_app.store` when that is
 * PostgreSQL: a server with `database` keeps sessions there), `--database`
 * or $GATEHOUSE_DATABASE_URL (the PostgreSQL sessions table, with --schema
 * and --table-prefix). A folder (`--store`, $GATEHOUSE_STORE) names none:
 * its servers keep sessions in memory. Nothing is opened.
 * D-CLI-16.
 */
export async function sharedSessions (io: CliIo, flags: StoreFlags): Promise<SharedSessions | undefined> {
  checkStoreFlags(flags)
  if (flags.config !== undefined) {
    const { config, stores } = await readConfig(io, flags.config)
    const session = config.middleware?.session
    const options = isPlainObject(session) ? session : {}
    const store = stores.sessions ?? (stores.users?.kind === 'postgres' ? stores.users : undefined)
    if (store === undefined) return undefined
    return { store, idleTtl: seconds(options.idleTtl, sessionDefaults.idleTtl), absoluteTtl: seconds(options.absoluteTtl, sessionDefaults.absoluteTtl) }
  }
  if (flags.store !== undefined) return undefined
  const envStore = io.env.GATEHOUSE_STORE
  if (flags.database === undefined && envStore !== undefined && envStore !== '' && (io.env[DATABASE_ENV] ?? '') !== '') {
    throw new UsageError(`both $GATEHOUSE_STORE and $${DATABASE_ENV} are set: unset one, or say which with --store or --database`)
  }
  const database = await databaseUrl(io, flags.database)
  if (database === undefined) return undefined
  const postgres = await postgresPackage()
  return {
    store: {
      kind: 'postgres',
      url: database.url,
      schema: postgres.checkSchema(flags.schema ?? postgres.postgresDefaults.schema, '--schema'),
      tablePrefix: postgres.checkTablePrefix(flags['table-prefix'] ?? postgres.postgresDefaults.tablePrefix, '--table-prefix')
    },
    idleTtl: sessionDefaults.idleTtl,
    absoluteTtl: sessionDefaults.absoluteTtl
  }
}

/** A session store a command opened, and how to let it go. */
export interface OpenedSessionStore { readonly store: SessionStore, close: () => Promise<void> }

/**
 * Connects to the shared session store: Redis (`GATEHOUSE_REDIS_CONNECT`
 * when it does not answer) or PostgreSQL (its schema checked, never
 * migrated), with a small pool.
 */
export async function openSharedSessions (shared: SharedSessions): Promise<OpenedSessionStore> {
  const { store: config } = shared
  if (config.kind === 'redis') {
    const store = await (await redisPackage()).RedisSessionStore.connect({ url: config.url, ...(config.prefix === undefined ? {} : { prefix: config.prefix }) })
    return { store, close: async () => { await store.close() } }
  }
  const store = await (await postgresPackage()).PostgresSessionStore.connect({
    url: config.url,
    ...(config.schema === undefined ? {} : { schema: config.schema }),
    ...(config.tablePrefix === undefined ? {} : { tablePrefix: config.tablePrefix }),
    poolSize: 2
  })
  return { store, close: async () => { await store.close() } }
}
