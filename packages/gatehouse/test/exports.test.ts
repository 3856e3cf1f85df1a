import { test } from 'tap'
import * as gatehouse from 'gatehouse'

test('the spec\'s importable symbols come from one package', async (t) => {
  for (const name of ['AppServer', 'Avatar', 'AuthCore', 'AuthMixin', 'PasswordMethod', 'FileApiKeyStore', 'FileUserStore', 'RoutedApplication', 'route', 'HttpError', 'Redirect', 'middlewareChain']) {
    t.type((gatehouse as Record<string, unknown>)[name], 'function', name)
  }
  t.same(gatehouse.components.names(), ['auth', 'cors', 'csrf', 'errors', 'logging', 'session', 'wellknown'], 'importing it registers every component')
})
