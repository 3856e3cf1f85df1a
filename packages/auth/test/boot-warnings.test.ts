import { test } from 'tap'
import Fastify from 'fastify'
import { authPlugin } from '@fastify-gatehouse/auth'
import { waitUntil } from '../../../test-helpers/wait.js'

// Issue 25 item 16, D-LOGGING-11: auth's boot warnings reach an app with
// Fastify's default logger (none) as process warnings with their codes.

test('an unknown section and an unguarded jwtCookie, with logger: false', async (t) => {
  const seen: Array<Error & { code?: string }> = []
  const listener = (warning: Error): void => { if (warning.name === 'GatehouseWarning') seen.push(warning) }
  process.on('warning', listener)
  t.teardown(() => { process.off('warning', listener) })
  const app = Fastify()
  await app.register(authPlugin, {
    bearer: { ci: { token: 'ci-static-token' } },
    jwt: [{ name: 'main', secret: 'a-jwt-secret-of-at-least-thirty-two-bytes!', algorithm: 'HS256' }],
    jwtCookie: 'token',
    bearers: { typo: true }
  } as never)
  await app.ready()
  await app.close()
  await waitUntil(() => seen.length >= 2, { what: 'two process warnings' })
  t.same(seen.map((w) => w.code).sort(), ['GATEHOUSE_AUTH_UNGUARDED_COOKIE', 'GATEHOUSE_AUTH_UNKNOWN_SECTION'])
  t.match(seen.find((w) => w.code === 'GATEHOUSE_AUTH_UNKNOWN_SECTION')?.message, 'auth: ignoring unknown section "bearers"')
})
