import { test } from 'tap'
import * as gatehouse from 'fastify-gatehouse'
// The spec's interfaces are types: the type check of this file is their test.
import type { ApiKeyStore, AuthMethod, UserStore } from 'fastify-gatehouse'

// eslint-disable-next-line @typescript-eslint/no-unused-vars -- type-checking the alias is the test
type SpecInterfaces = [ApiKeyStore, AuthMethod, UserStore]

test('the spec\'s importable symbols come from one package', async (t) => {
  for (const name of ['AppServer', 'Avatar', 'AuthCore', 'AuthMixin', 'PasswordMethod', 'OidcMethod', 'FileApiKeyStore', 'FileUserStore', 'RoutedApplication', 'route', 'HttpError', 'Redirect', 'middlewareChain', 'RedisSessionStore', 'RedisLockoutStore']) {
    t.type((gatehouse as Record<string, unknown>)[name], 'function', name)
  }
  t.same(gatehouse.components.names(), ['auth', 'cache', 'compression', 'cors', 'csrf', 'errors', 'logging', 'session', 'wellknown'], 'importing it registers every component')
})
