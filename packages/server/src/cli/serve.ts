import { isAbsolute, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { extendOptions, pickServerLimits, type GatehouseConfig } from '@fastify-gatehouse/core'
import { passwordPolicyDefaults, type LockoutStore } from '@fastify-gatehouse/auth'
import { FileApiKeyStore, FileUserStore } from '@fastify-gatehouse/files'
import type { SessionStore } from '@fastify-gatehouse/session'
import { AppServer, type AppServerOptions } from '../app-server/app-server.js'
import { checkAdminPassword } from '../app-server/auth-mixin.js'
import { RoutedApplication } from '../app-server/routed-application.js'
import { GATEHOUSE_SERVER_BAD_APP } from '../errors.js'
import type { AccountOptions } from '../server-app/account/options.js'
import { noArguments, parseCommand } from './arguments.js'
import { UsageError, type CliIo } from './io.js'
import { openLockoutStore, openSessionStore, redisHost } from './redis-stores.js'
import { readConfig } from './config-file.js'
import { databaseUrl, DATABASE_ENV } from './database-flag.js'
import { postgresPackage } from './drivers.js'
import type { ConfigStores, PostgresStoreConfig, RedisStoreConfig } from './store-config.js'
import { isStore, keysFile, usersFile } from './store-paths.js'

export const SERVE_USAGE = `Usage:
  gatehouse serve --config <gatehouse.yaml|json> [--app <module>] [--host <host>] [--port <port>]
  gatehouse serve --database <postgres://user@host:port/db> [--migrate] [--config <file>] [--app …] [--host …] [--port …]
The module's default export is a RoutedApplication (instance or class).
The admin password, if any, comes from $GATEHOUSE_ADMIN_PASSWORD (it must pass the
password policy: the file's server_app.password_policy, else the defaults).
Users and keys: the file's server_app.store, else --database, else $${DATABASE_ENV};
in PostgreSQL, sessions and lockout counters are there too unless the file
places them (middleware.session.store, server_app.login.store). --migrate brings
the schema up to date at start (else a schema that is behind stops the boot).
`

/** A `{ postgres: … }` of the file as the stores take it: everything but the tag. */
function withoutKind ({ kind: _kind, ...settings }: PostgresStoreConfig): Omit<PostgresStoreConfig, 'kind'> {
  return settings
}

async function loadApplication (module: string, cwd: string): Promise<RoutedApplication> {
  const url = pathToFileURL(isAbsolute(module) ? module : resolve(cwd, module)).href
  let loaded: unknown
  try {
    loaded = (await import(url) as { default?: unknown }).default
  } catch (err) {
    throw new GATEHOUSE_SERVER_BAD_APP(`cannot load ${module}: ${(err as Error).message.split('\n')[0] ?? ''}`)
  }
  if (loaded instanceof RoutedApplication) return loaded
  if (typeof loaded === 'function' && loaded.prototype instanceof RoutedApplication) return new (loaded as new () => RoutedApplication)()
  throw new GATEHOUSE_SERVER_BAD_APP(`${module}: the default export must be a RoutedApplication (an instance or a class)`)
}

/**
 * `gatehouse serve`: an AppServer from a config file; stops gracefully on
 * SIGINT/SIGTERM. Resolves with the exit code once stopped.
 */
export async function serveCommand (args: string[], io: CliIo, signals: NodeJS.EventEmitter = process): Promise<number> {
  const { values, positionals } = parseCommand(args, 1, {
    config: { type: 'string' },
    app: { type: 'string' },
    host: { type: 'string' },
    port: { type: 'string' },
    database: { type: 'string' },
    migrate: { type: 'boolean', default: false }
  })
  noArguments(positionals)
  const port = values.port === undefined ? undefined : Number(values.port)
  if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port <= 65535)) throw new UsageError('--port takes 0–65535')

  const { config, stores, passwordPolicy } = values.config === undefined
    ? { config: {} as GatehouseConfig, stores: {} as ConfigStores, passwordPolicy: passwordPolicyDefaults }
    : await readConfig(io, values.config)
  // Checked against the file's policy before anything is opened; the value is never shown.
  const adminPassword = io.env.GATEHOUSE_ADMIN_PASSWORD === undefined ? undefined : checkAdminPassword(io.env.GATEHOUSE_ADMIN_PASSWORD, '$GATEHOUSE_ADMIN_PASSWORD', passwordPolicy)
  if (values.database !== undefined && stores.users !== undefined) throw new UsageError('--database and the config file\'s server_app.store both name the users\' store: give it in one place')
  // Users and keys: the flag, else the file, else $GATEHOUSE_DATABASE_URL (D-CLI-02).
  const fromUrl = stores.users === undefined ? await databaseUrl(io, values.database) : undefined
  const usersStore = fromUrl === undefined ? stores.users : { kind: 'postgres' as const, url: fromUrl.url }
  if (values.config === undefined && usersStore === undefined) throw new UsageError(`give --config <file>, or a database (--database <url> or $${DATABASE_ENV})`)
  if (values.migrate && usersStore?.kind !== 'postgres') throw new UsageError('--migrate goes with a PostgreSQL store (--database, or server_app.store: { postgres: … })')
  // The file's { postgres: … } is AppServer's database option, its numbers (pool_size, max_stale, …) included.
  const database = usersStore?.kind === 'postgres'
    ? { ...withoutKind(usersStore), ...(values.migrate || usersStore.migrate === true ? { migrate: true } : {}) }
    : undefined
  const serverAppConfig = (config.serverApp ?? {}) as { login?: Record<string, unknown>, loginSurface?: boolean, account?: AccountOptions | false }
  const primary = values.app === undefined ? undefined : await loadApplication(values.app, io.cwd)
  // Everything opened here, closed in reverse order at the end or on a failure.
  const opened: Array<{ close: () => Promise<void> }> = []
  const closeStores = async (): Promise<void> => {
    for (const store of opened.reverse()) await store.close()
    opened.length = 0
  }
  let options: AppServerOptions
  try {
    options = await serverOptions()
  } catch (err) {
    await closeStores()
    throw err
  }

  async function serverOptions (): Promise<AppServerOptions> {
    const storeDir = usersStore?.kind === 'folder' ? usersStore.dir : undefined
    if (storeDir !== undefined && !await isStore(storeDir)) {
      io.stderr.write(`gatehouse: server_app.store: no store at ${storeDir} yet; starting an empty one there\n`)
    }
    const users = storeDir === undefined ? undefined : await FileUserStore.open(usersFile(storeDir))
    const tokens = storeDir === undefined ? undefined : await FileApiKeyStore.open(keysFile(storeDir))
    if (tokens !== undefined) opened.push(tokens)
    const sessionStore = stores.sessions === undefined ? undefined : await openStore(stores.sessions, 'sessions')
    const lockoutStore = stores.lockout === undefined ? undefined : await openStore(stores.lockout, 'lockout counters')
    const middleware = config.middleware === undefined
      ? undefined
      : {
          ...config.middleware,
          // The file's section was checked by the loader; only the opened store is checked (D-CHAIN-12).
          ...(sessionStore === undefined ? {} : { session: extendOptions(config.middleware.session as Record<string, unknown>, { store: sessionStore }, 'middleware.session') })
        }
    const login = serverAppConfig.login === undefined
      ? undefined
      : {
          ...serverAppConfig.login,
          ...(lockoutStore === undefined ? {} : { store: lockoutStore })
        }
    return {
      ...(primary === undefined ? {} : { primary }),
      // The file's auth_middleware is AppServer's auth, the same shape (the JWT verifiers a list).
      ...(config.authMiddleware === undefined ? {} : { auth: config.authMiddleware }),
      ...(users === undefined ? {} : { users }),
      ...(tokens === undefined ? {} : { tokens }),
      // Users, keys, and the sessions and lockout counters the file does not place elsewhere: AppServer opens them.
      ...(database === undefined ? {} : { database }),
      // D-CLI-02: the admin password from the environment, never from the config file.
      ...(adminPassword === undefined ? {} : { adminPassword }),
      ...(config.serverApp?.passwordPolicy === undefined ? {} : { passwordPolicy }),
      login: serverAppConfig.loginSurface ?? usersStore !== undefined,
      ...(config.server?.externalUrl === undefined ? {} : { externalUrl: config.server.externalUrl }),
      // request_timeout, body_limit, …: checked by the loader, applied by AppServer.
      ...(config.server === undefined ? {} : { server: pickServerLimits(config.server as Record<string, unknown>) }),
      ...(login === undefined && serverAppConfig.account === undefined
        ? {}
        : { serverApp: { ...(login === undefined ? {} : { login }), ...(serverAppConfig.account === undefined ? {} : { account: serverAppConfig.account }) } }),
      ...(middleware === undefined ? {} : { middleware }),
      logger: true
    }
  }

  // A session or lockout store the file names: Redis (an unreachable one is
  // a warning, D-REDIS-05) or PostgreSQL (connect() fails at boot).
  async function openStore (config: RedisStoreConfig | PostgresStoreConfig, what: string): Promise<SessionStore & LockoutStore> {
    if (config.kind === 'postgres') {
      const postgres = await postgresPackage()
      const settings = { ...withoutKind(config), migrate: config.migrate === true }
      const store = what === 'sessions' ? await postgres.PostgresSessionStore.connect(settings) : await postgres.PostgresLockoutStore.connect(settings)
      opened.push(store)
      return store as unknown as SessionStore & LockoutStore
    }
    const store = what === 'sessions' ? await openSessionStore(config) : await openLockoutStore(config)
    opened.push(store)
    // D-REDIS-05; it goes when the stores are made with connect() (D-REDIS-08).
    await store.ready().catch(() => io.stderr.write(`gatehouse: Redis for ${what} at ${redisHost(config.url)} is not answering yet; requests that need it get 503 until it does\n`))
    return store as unknown as SessionStore & LockoutStore
  }

  let server: AppServer | undefined
  try {
    server = new AppServer(options)
    const url = await server.serve(values.host ?? config.server?.host ?? '127.0.0.1', port ?? config.server?.port ?? 8000)
    io.stdout.write(`gatehouse: serving at ${url}/ (Ctrl-C stops)\n`)
  } catch (err) {
    await server?.close()
    await closeStores()
    throw err
  }
  await new Promise<void>((resolve) => {
    const stop = (): void => { signals.off('SIGINT', stop); signals.off('SIGTERM', stop); resolve() }
    signals.on('SIGINT', stop)
    signals.on('SIGTERM', stop)
  })
  io.stderr.write('gatehouse: stopping; waiting for requests in flight\n')
  await server.close()
  await closeStores()
  return 0
}
