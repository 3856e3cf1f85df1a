import { isAbsolute, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { pickServerLimits, type GatehouseConfig } from '@fastify-gatehouse/core'
import type { LockoutStore, PasswordPolicy } from '@fastify-gatehouse/auth'
import { FileApiKeyStore, FileUserStore } from '@fastify-gatehouse/files'
import type { SessionStore } from '@fastify-gatehouse/session'
import { AppServer } from '../app-server/app-server.js'
import { withOpenedStores, type OpenedStores } from '../app-server/opened-stores.js'
import type { AppServerOptions } from '../app-server/options.js'
import { resolveServerOptions, type ResolvedServerOptions, type ResolveNames } from '../app-server/resolve-server-options.js'
import { RoutedApplication } from '../app-server/routed-application.js'
import { GATEHOUSE_SERVER_BAD_APP } from '../errors.js'
import type { AccountOptions } from '../server-app/account/options.js'
import type { LoginOptions } from '../server-app/options.js'
import { noArguments, parseCommand } from './arguments.js'
import { UsageError, type CliIo } from './io.js'
import { openLockoutStore, openSessionStore, redisHost } from './redis-stores.js'
import { readConfigFile } from './config-file.js'
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

// How `gatehouse serve` names what it maps, in the server's errors: as written in the file, or the variable.
const FILE_NAMES: ResolveNames = {
  adminPassword: '$GATEHOUSE_ADMIN_PASSWORD',
  passwordPolicy: 'server_app.password_policy',
  login: 'server_app.login',
  account: 'server_app.account'
}

/**
 * A config file as AppServer's input (the same input code gives): the
 * file's sections (checked by the loader), the users' store of the file or
 * the flags (a PostgreSQL one is AppServer's `database`), and the admin
 * password from the environment. The stores `serve` opens itself are added
 * after resolving (withOpenedStores).
 */
type UsersStoreConfig = NonNullable<ConfigStores['users']>

function serverInput (config: GatehouseConfig, usersStore: UsersStoreConfig | undefined, primary: RoutedApplication | undefined, adminPassword: string | undefined, migrate: boolean): AppServerOptions {
  const serverAppConfig = (config.serverApp ?? {}) as { login?: LoginOptions, loginSurface?: boolean, account?: AccountOptions | false, passwordPolicy?: PasswordPolicy }
  // The file's { postgres: … } is AppServer's database option, its numbers (pool_size, max_stale, …) included.
  const database = usersStore?.kind === 'postgres'
    ? { ...withoutKind(usersStore), ...(migrate || usersStore.migrate === true ? { migrate: true } : {}) }
    : undefined
  // The file's login.store names where counters live: serve opens it (withOpenedStores).
  const { store: _lockoutStore, ...login } = serverAppConfig.login ?? {}
  const { account } = serverAppConfig
  return {
    ...(primary === undefined ? {} : { primary }),
    // The file's auth_middleware is AppServer's auth, the same shape (the JWT verifiers a list).
    ...(config.authMiddleware === undefined ? {} : { auth: config.authMiddleware }),
    // Users, keys, and the sessions and lockout counters the file does not place elsewhere: AppServer opens them.
    ...(database === undefined ? {} : { database }),
    // D-CLI-02: the admin password from the environment, never from the config file.
    ...(adminPassword === undefined ? {} : { adminPassword }),
    ...(serverAppConfig.passwordPolicy === undefined ? {} : { passwordPolicy: serverAppConfig.passwordPolicy }),
    login: serverAppConfig.loginSurface ?? usersStore !== undefined,
    ...(config.server?.externalUrl === undefined ? {} : { externalUrl: config.server.externalUrl }),
    // request_timeout, body_limit, …: checked by the loader, applied by AppServer.
    ...(config.server === undefined ? {} : { server: pickServerLimits(config.server as Record<string, unknown>) }),
    ...(serverAppConfig.login === undefined && account === undefined
      ? {}
      : { serverApp: { ...(serverAppConfig.login === undefined ? {} : { login }), ...(account === undefined ? {} : { account }) } }),
    ...(config.middleware === undefined ? {} : { middleware: config.middleware }),
    logger: true
  }
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

  const { config, stores } = values.config === undefined
    ? { config: {} as GatehouseConfig, stores: {} as ConfigStores }
    : await readConfigFile(io, values.config)
  if (values.database !== undefined && stores.users !== undefined) throw new UsageError('--database and the config file\'s server_app.store both name the users\' store: give it in one place')
  // Users and keys: the flag, else the file, else $GATEHOUSE_DATABASE_URL (D-CLI-02).
  const fromUrl = stores.users === undefined ? await databaseUrl(io, values.database) : undefined
  const usersStore = fromUrl === undefined ? stores.users : { kind: 'postgres' as const, url: fromUrl.url }
  if (values.config === undefined && usersStore === undefined) throw new UsageError(`give --config <file>, or a database (--database <url> or $${DATABASE_ENV})`)
  if (values.migrate && usersStore?.kind !== 'postgres') throw new UsageError('--migrate goes with a PostgreSQL store (--database, or server_app.store: { postgres: … })')
  const primary = values.app === undefined ? undefined : await loadApplication(values.app, io.cwd)
  // The file mapped to AppServer's input and resolved, once, before anything
  // opens: a bad $GATEHOUSE_ADMIN_PASSWORD stops the boot with nothing to close.
  const resolved = resolveServerOptions(serverInput(config, usersStore, primary, io.env.GATEHOUSE_ADMIN_PASSWORD, values.migrate), FILE_NAMES)
  // Everything opened here, closed in reverse order at the end or on a failure.
  const opened: Array<{ close: () => Promise<void> }> = []
  const closeStores = async (): Promise<void> => {
    for (const store of opened.reverse()) await store.close()
    opened.length = 0
  }
  let options: ResolvedServerOptions
  try {
    options = withOpenedStores(resolved, await openFileStores())
  } catch (err) {
    await closeStores()
    throw err
  }

  // The stores the file names that the server does not open itself: a folder's users and keys, Redis or PostgreSQL sessions and lockout counters.
  async function openFileStores (): Promise<OpenedStores> {
    const storeDir = usersStore?.kind === 'folder' ? usersStore.dir : undefined
    if (storeDir !== undefined && !await isStore(storeDir)) {
      io.stderr.write(`gatehouse: server_app.store: no store at ${storeDir} yet; starting an empty one there\n`)
    }
    const users = storeDir === undefined ? undefined : await FileUserStore.open(usersFile(storeDir))
    const tokens = storeDir === undefined ? undefined : await FileApiKeyStore.open(keysFile(storeDir))
    if (tokens !== undefined) opened.push(tokens)
    const sessionStore = stores.sessions === undefined ? undefined : await openStore(stores.sessions, 'sessions')
    const lockoutStore = stores.lockout === undefined ? undefined : await openStore(stores.lockout, 'lockout counters')
    return {
      ...(users === undefined ? {} : { users }),
      ...(tokens === undefined ? {} : { tokens }),
      ...(sessionStore === undefined ? {} : { sessionStore }),
      ...(lockoutStore === undefined ? {} : { lockoutStore })
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
