import { test } from 'tap'
import Fastify from 'fastify'
import { recipeFromConfig } from '@fastify-gatehouse/core'
import { csrfDefaults, csrfPlugin, resolveCsrfOptions } from '@fastify-gatehouse/csrf'

test('defaults: the session component\'s cookie, no other origin; frozen', async (t) => {
  t.same(csrfDefaults, { cookieName: 'session_id', allowOrigins: [] })
  t.ok(Object.isFrozen(csrfDefaults) && Object.isFrozen(csrfDefaults.allowOrigins))
  t.same(resolveCsrfOptions({}), csrfDefaults)
  t.equal(csrfPlugin.component.order, 310)
  t.equal(csrfPlugin.component.default, false)
})

test('allowOrigins takes a list or a comma string; the caller\'s array is not changed', async (t) => {
  const list = [' https://a.example ', 'http://localhost:5173']
  t.same(resolveCsrfOptions({ allowOrigins: list }).allowOrigins, ['https://a.example', 'http://localhost:5173'])
  t.same(list, [' https://a.example ', 'http://localhost:5173'])
  t.same(resolveCsrfOptions({ allowOrigins: 'https://a.example,,https://b.example' }).allowOrigins, ['https://a.example', 'https://b.example'])
})

test('bad options are boot errors naming the option', async (t) => {
  const cases: Array<[Record<string, unknown>, string, RegExp]> = [
    [{ allowOrigins: '*' }, 'GATEHOUSE_CSRF_INVALID_OPTIONS', /allowOrigins: "\*" would turn the check off/],
    [{ allowOrigins: ['https://a.example/'] }, 'GATEHOUSE_CSRF_INVALID_OPTIONS', /allowOrigins: "https:\/\/a.example\/" is not an origin/],
    [{ allowOrigins: 'null' }, 'GATEHOUSE_CSRF_INVALID_OPTIONS', /allowOrigins: "null"/],
    [{ cookieName: 'a b' }, 'GATEHOUSE_CORE_INVALID_OPTIONS', /csrf options\.cookieName/],
    [{ cookieName: '' }, 'GATEHOUSE_CORE_INVALID_OPTIONS', /cookieName/],
    [{ methods: ['POST'] }, 'GATEHOUSE_CORE_INVALID_OPTIONS', /csrf options\.methods: unknown option/]
  ]
  for (const [options, code, message] of cases) {
    const app = Fastify()
    await t.rejects(async () => { await app.register(csrfPlugin, options as never).ready() }, { code, message }, JSON.stringify(options))
    await app.close()
  }
})

test('config files use snake_case keys', async (t) => {
  const config = recipeFromConfig({ middleware: { csrf: { cookie_name: 'sid', allow_origins: 'https://a.example' } } }, { components: [csrfPlugin] })
  t.same(config.middleware, { csrf: { cookieName: 'sid', allowOrigins: 'https://a.example' } })
  t.throws(() => recipeFromConfig({ middleware: { csrf: { cookieName: 'sid' } } }, { components: [csrfPlugin] }), { code: 'GATEHOUSE_CORE_INVALID_OPTIONS', message: /config files use snake_case: cookie_name/ })
})

test('registered alone (no session component), it still refuses a forged POST', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(csrfPlugin)
  app.post('/', async () => ({ ok: true }))
  const forged = await app.inject({ method: 'POST', url: '/', headers: { cookie: 'session_id=abc', origin: 'https://evil.example' } })
  t.equal(forged.statusCode, 403)
  t.equal(forged.json().code, 'GATEHOUSE_CSRF_CROSS_SITE')
  const own = await app.inject({ method: 'POST', url: '/', headers: { cookie: 'session_id=abc', origin: 'http://localhost:80' } })
  t.equal(own.statusCode, 403, 'an explicit default port is not how browsers serialise an origin')
  const same = await app.inject({ method: 'POST', url: '/', headers: { cookie: 'session_id=abc', origin: 'http://localhost' } })
  t.equal(same.statusCode, 200)
})
