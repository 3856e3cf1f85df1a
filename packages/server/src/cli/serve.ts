import { isAbsolute, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { Type } from '@sinclair/typebox'
import { extendOptions, loadRecipe, pickServerLimits } from '@fastify-gatehouse/core'
import { FileApiKeyStore, FileUserStore } from '@fastify-gatehouse/auth'
import { AppServer } from '../app-server/app-server.js'
import { checkAdminPassword } from '../app-server/auth-mixin.js'
import { RoutedApplication } from '../app-server/routed-application.js'
import { allComponents } from '../components.js'
import { GATEHOUSE_SERVER_BAD_APP, GATEHOUSE_SERVER_INVALID_OPTIONS } from '../errors.js'
import { loginOptionsSchema } from '../server-app/options.js'
import { UsageError, type CliIo } from './io.js'
import { openLockoutStore, openSessionStore, redisHost } from './redis-stores.js'
import { configStores } from './store-config.js'
import { isStore, keysFile, usersFile } from './store-paths.js'

export const SERVE_USAGE = `Usage:
  gatehouse serve --config <gatehouse.yaml|json> [--app <module>] [--host <host>] [--port <port>]
The module's default export is a RoutedApplication (instance or class).
The admin password, if any, comes from $GATEHOUSE_ADMIN_PASSWORD.
`

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
  loginSurface: Type.Optional(Type.Boolean())
}, { additionalProperties: false })

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
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { config: { type: 'string' }, app: { type: 'string' }, host: { type: 'string' }, port: { type: 'string' } }
  })
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`)
  if (values.config === undefined) throw new UsageError('--config is required')
  const port = values.port === undefined ? undefined : Number(values.port)
  if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port <= 65535)) throw new UsageError('--port takes 0–65535')

  // Checked before anything is opened; the value is never shown.
  const adminPassword = io.env.GATEHOUSE_ADMIN_PASSWORD === undefined ? undefined : checkAdminPassword(io.env.GATEHOUSE_ADMIN_PASSWORD, '$GATEHOUSE_ADMIN_PASSWORD')
  const configPath = resolve(io.cwd, values.config)
  const config = await loadRecipe(configPath, { components: allComponents, serverAppSchema })
  const serverAppConfig = (config.serverApp ?? {}) as { login?: Record<string, unknown>, loginSurface?: boolean }
  // Every store the file names, checked before anything opens (D-REDIS-05);
  // the session store sits under middleware.session (D-CONFIG-05).
  const stores = await configStores(config, configPath)
  for (const [store, path] of [[stores.users, 'server_app.store'], [stores.sessions, 'middleware.session.store'], [stores.lockout, 'server_app.login.store']] as const) {
    if (store?.kind === 'postgres') throw new GATEHOUSE_SERVER_INVALID_OPTIONS(`${path}.postgres`, 'gatehouse serve does not open PostgreSQL stores yet')
  }
  const sessionStoreConfig = stores.sessions?.kind === 'redis' ? stores.sessions : undefined
  const lockoutStoreConfig = stores.lockout?.kind === 'redis' ? stores.lockout : undefined
  const storeDir = stores.users?.kind === 'folder' ? stores.users.dir : undefined
  if (storeDir !== undefined && !await isStore(storeDir)) {
    io.stderr.write(`gatehouse: server_app.store: no store at ${storeDir} yet; starting an empty one there\n`)
  }
  const users = storeDir === undefined ? undefined : await FileUserStore.open(usersFile(storeDir))
  const tokens = storeDir === undefined ? undefined : await FileApiKeyStore.open(keysFile(storeDir))
  const primary = values.app === undefined ? undefined : await loadApplication(values.app, io.cwd)
  const sessionStore = sessionStoreConfig === undefined ? undefined : await openSessionStore(sessionStoreConfig)
  const lockoutStore = lockoutStoreConfig === undefined ? undefined : await openLockoutStore(lockoutStoreConfig)
  const closeStores = async (): Promise<void> => {
    await tokens?.close()
    await sessionStore?.close()
    await lockoutStore?.close()
  }
  // An unreachable Redis is not a boot error: requests that need it get 503
  // until it answers (the clients reconnect by themselves). D-REDIS-05; it
  // goes when the stores are made with connect() (D-REDIS-08).
  for (const [store, what, url] of [[sessionStore, 'sessions', sessionStoreConfig?.url], [lockoutStore, 'lockout counters', lockoutStoreConfig?.url]] as const) {
    if (store === undefined || url === undefined) continue
    await store.ready().catch(() => io.stderr.write(`gatehouse: Redis for ${what} at ${redisHost(url)} is not answering yet; requests that need it get 503 until it does\n`))
  }
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
  const options = {
    ...(primary === undefined ? {} : { primary }),
    // The file's auth_middleware is AppServer's auth, the same shape (the JWT verifiers a list).
    ...(config.authMiddleware === undefined ? {} : { auth: config.authMiddleware }),
    ...(users === undefined ? {} : { users }),
    ...(tokens === undefined ? {} : { tokens }),
    // D-CLI-02: the admin password from the environment, never from the config file.
    ...(adminPassword === undefined ? {} : { adminPassword }),
    login: serverAppConfig.loginSurface ?? users !== undefined,
    ...(config.server?.externalUrl === undefined ? {} : { externalUrl: config.server.externalUrl }),
    // request_timeout, body_limit, …: checked by the loader, applied by AppServer.
    ...(config.server === undefined ? {} : { server: pickServerLimits(config.server as Record<string, unknown>) }),
    ...(login === undefined ? {} : { serverApp: { login } }),
    ...(middleware === undefined ? {} : { middleware }),
    logger: true
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
