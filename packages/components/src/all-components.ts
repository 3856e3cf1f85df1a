import type { ComponentList } from '@fastify-gatehouse/core'
import { errorsPlugin } from '@fastify-gatehouse/errors'
import { wellknownPlugin } from '@fastify-gatehouse/wellknown'
import { loggingPlugin } from '@fastify-gatehouse/logging'
import { corsPlugin } from '@fastify-gatehouse/cors'
import { csrfPlugin } from '@fastify-gatehouse/csrf'
import { authPlugin } from '@fastify-gatehouse/auth'
import { sessionPlugin } from '@fastify-gatehouse/session'
import { cachePlugin } from '@fastify-gatehouse/cache'
import { compressionPlugin } from '@fastify-gatehouse/compression'

/**
 * Every Gatehouse component, the list a server recipe and a config file
 * resolve names against unless told otherwise. Listed by order for the
 * reader; the chain sorts them itself. Add your own with
 * `[...allComponents, myComponent]`.
 * D-CHAIN-07, D-CORE-14: in a package of its own, below the server (which
 * needs it and cannot import the umbrella) and beside no server code, so
 * that the chain loads without the server and openid-client.
 */
export const allComponents: ComponentList = Object.freeze([
  errorsPlugin,
  wellknownPlugin,
  loggingPlugin,
  corsPlugin,
  csrfPlugin,
  authPlugin,
  sessionPlugin,
  cachePlugin,
  compressionPlugin
])
