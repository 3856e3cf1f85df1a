import { AuthMixin } from './auth-mixin.js'
import type { AppServerOptions } from './options.js'
import { ServerBase } from './server-base.js'

export type { AppServerOptions } from './options.js'

/**
 * The ready server: the chain from a recipe, caller authentication, the
 * `_server` app (login, logout, login methods, the SUPERADMIN API) and your
 * applications.
 *
 * ```ts
 * const server = new AppServer({ primary: new Shop(), users: { alice: { password, tags: 'admin' } }, login: true })
 * await server.serve('127.0.0.1', 8000)
 * ```
 */
export class AppServer extends AuthMixin(ServerBase) {
  constructor (options: AppServerOptions = {}) {
    super(options)
  }
}
