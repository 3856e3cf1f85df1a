import { isAbsolute, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { Type } from '@sinclair/typebox'
import { loadRecipe, pickServerLimits } from '@fastify-gatehouse/core'
import { FileApiKeyStore, FileUserStore, type JwtVerifierOptions } from '@fastify-gatehouse/auth'
import { AppServer } from '../app-server/app-server.js'
import { RoutedApplication } from '../app-server/routed-application.js'
import { UsageError, type CliIo } from './io.js'
import { openLockoutStore, openSessionStore, redisHost, redisStoreConfig, redisStoreSchema } from './redis-stores.js'
import { keysFile, usersFile } from './store-paths.js'

export const SERVE_USAGE = `Usage:
  gatehouse serve --config <gatehouse.yaml|json> [--app <module>] [--host <host>] [--port <port>]
The module's default export is a RoutedApplication (instance or class).
The admin password, if any, comes from $GATEHOUSE_ADMIN_PASSWORD.
`

/** The `server_app` section of a config file (snake_case in the file). */
export const serverAppSchema = Type.Object({
  login: Type.Optional(Type.Object({
    maxAttempts: Type.Optional(Type.Integer({ minimum: 1 })),
    backoff: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
    addressMaxAttempts: Type.Optional(Type.Integer({ minimum: 1 })),
    resetAfter: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
    /** Where lockout counters live: `{ redis: 'redis://…' }` (default: this process's memory). */
    store: Type.Optional(redisStoreSchema)
  }, { additionalProperties: false })),
  /** Folder of users.json and keys.json (as for the CLI's --store). */
  store: Type.Optional(Type.String({ minLength: 1 })),
  /** The login surface (401 → login page). Default: on when a store is given. */
  loginSurface: Type.Optional(Type.Boolean())
}, { additionalProperties: false })

/** The `--app` module cannot be used; exit code 1 with the reason. */
export class AppModuleError extends Error {
  readonly code = 'GATEHOUSE_SERVER_BAD_APP'
}

async function loadApplication (module: string, cwd: string): Promise<RoutedApplication> {
  const url = pathToFileURL(isAbsolute(module) ? module : resolve(cwd, module)).href
  let loaded: unknown
  try {
    loaded = (await import(url) as { default?: unknown }).default
  } catch (err) {
    throw new AppModuleError(`cannot load ${module}: ${(err as Error).message.split('\n')[0] ?? ''}`)
  }
  if (loaded instanceof RoutedApplication) return loaded
  if (typeof loaded === 'function' && loaded.prototype instanceof RoutedApplication) return new (loaded as new () => RoutedApplication)()
  throw new AppModuleError(`${module}: the default export must be a RoutedApplication (an instance or a class)`)
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

  const config = await loadRecipe(resolve(io.cwd, values.config), { serverAppSchema })
  const serverAppConfig = (config.serverApp ?? {}) as { login?: Record<string, unknown>, store?: string, loginSurface?: boolean }
  // Stores given as Redis URLs: checked before anything opens.
  const sessionSetting = config.middleware?.session
  const sessionStoreConfig = typeof sessionSetting === 'object' && sessionSetting !== null && sessionSetting.store !== undefined
    ? await redisStoreConfig(sessionSetting.store, 'middleware.session.store')
    : undefined
  const lockoutStoreConfig = serverAppConfig.login?.store === undefined ? undefined : await redisStoreConfig(serverAppConfig.login.store, 'server_app.login.store')
  const storeDir = serverAppConfig.store === undefined ? undefined : resolve(io.cwd, serverAppConfig.store)
  const users = storeDir === undefined ? undefined : await FileUserStore.open(usersFile(storeDir))
  const tokens = storeDir === undefined ? undefined : await FileApiKeyStore.open(keysFile(storeDir))
  const { jwt, ...auth } = config.authMiddleware ?? {}
  const primary = values.app === undefined ? undefined : await loadApplication(values.app, io.cwd)
  const sessionStore = sessionStoreConfig === undefined ? undefined : await openSessionStore(sessionStoreConfig)
  const lockoutStore = lockoutStoreConfig === undefined ? undefined : await openLockoutStore(lockoutStoreConfig)
  const closeStores = async (): Promise<void> => {
    await tokens?.close()
    await sessionStore?.close()
    await lockoutStore?.close()
  }
  // An unreachable Redis is not a boot error: requests that need it get 503
  // until it answers (the clients reconnect by themselves).
  for (const [store, what, url] of [[sessionStore, 'sessions', sessionStoreConfig?.redis], [lockoutStore, 'lockout counters', lockoutStoreConfig?.redis]] as const) {
    if (store === undefined || url === undefined) continue
    await store.ready().catch(() => io.stderr.write(`gatehouse: Redis for ${what} at ${redisHost(url)} is not answering yet; requests that need it get 503 until it does\n`))
  }
  const middleware = config.middleware === undefined
    ? undefined
    : {
        ...config.middleware,
        ...(sessionStore === undefined ? {} : { session: { ...(sessionSetting as Record<string, unknown>), store: sessionStore } })
      }
  const login = serverAppConfig.login === undefined
    ? undefined
    : {
        ...serverAppConfig.login,
        ...(lockoutStore === undefined ? {} : { store: lockoutStore })
      }
  const options = {
    ...(primary === undefined ? {} : { primary }),
    ...(config.authMiddleware === undefined
      ? {}
      : {
          auth: { ...auth, ...(jwt === undefined ? {} : { jwt: Object.entries(jwt as Record<string, JwtVerifierOptions>).map(([name, v]) => ({ ...v, name })) }) }
        }),
    ...(users === undefined ? {} : { users }),
    ...(tokens === undefined ? {} : { tokens }),
    ...(io.env.GATEHOUSE_ADMIN_PASSWORD === undefined ? {} : { adminPassword: io.env.GATEHOUSE_ADMIN_PASSWORD }),
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
