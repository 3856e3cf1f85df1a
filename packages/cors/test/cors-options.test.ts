import { test } from 'tap'
import Fastify from 'fastify'
import { recipeFromConfig } from '@fastify-gatehouse/core'
import { corsDefaults, corsPlugin, resolveCorsOptions } from '@fastify-gatehouse/cors'
import { build, corsHeaders } from './helpers/build.js'

test('defaults are the spec\'s and frozen', async (t) => {
  t.same(corsDefaults, {
    allowOrigins: ['*'],
    allowMethods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'],
    allowHeaders: ['*'],
    allowCredentials: false,
    exposeHeaders: [],
    maxAge: 600,
    preflight: true,
    strictPreflight: false,
    optionsSuccessStatus: 204,
    callbackTimeout: 5
  })
  t.ok(Object.isFrozen(corsDefaults) && Object.isFrozen(corsDefaults.allowOrigins))
  t.same(resolveCorsOptions({}), corsDefaults)
})

test('lists take comma strings; items trimmed, empties dropped, methods upper-cased', async (t) => {
  const given = { allowOrigins: ' https://a.example , http://b.example:8080,', allowMethods: 'get,post', allowHeaders: ['x-a', ' x-b '], exposeHeaders: 'x-total' }
  const copy = structuredClone(given)
  t.same(resolveCorsOptions(given), {
    allowOrigins: ['https://a.example', 'http://b.example:8080'],
    allowMethods: ['GET', 'POST'],
    allowHeaders: ['x-a', 'x-b'],
    allowCredentials: false,
    exposeHeaders: ['x-total'],
    maxAge: 600,
    preflight: true,
    strictPreflight: false,
    optionsSuccessStatus: 204,
    callbackTimeout: 5
  })
  t.same(given, copy, "the caller's object is not changed")
})

test('every default is what the wire shows', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  const res = await app.inject({ method: 'OPTIONS', url: '/open', headers: { origin: 'https://x.example', 'access-control-request-method': 'PATCH', 'access-control-request-headers': 'x-anything' } })
  t.same(corsHeaders(res), {
    'access-control-allow-origin': '*',
    'access-control-allow-methods': 'GET,POST,PUT,PATCH,DELETE,HEAD,OPTIONS',
    'access-control-allow-headers': 'x-anything',
    'access-control-max-age': '600'
  }, 'allowOrigins *, the methods, allowHeaders * (echo), no credentials, no expose, max-age 600')
})

test('bad options are boot errors naming the option', async (t) => {
  const cases: Array<[Record<string, unknown>, string, RegExp]> = [
    [{ allowOrigins: 'https://a.example/' }, 'GATEHOUSE_CORS_INVALID_OPTIONS', /allowOrigins: "https:\/\/a.example\/" is not an origin/],
    [{ allowOrigins: 'https://A.example' }, 'GATEHOUSE_CORS_INVALID_OPTIONS', /allowOrigins/],
    [{ allowOrigins: 'a.example' }, 'GATEHOUSE_CORS_INVALID_OPTIONS', /allowOrigins/],
    [{ allowOrigins: 'null' }, 'GATEHOUSE_CORS_INVALID_OPTIONS', /allowOrigins: "null"/],
    [{ allowOrigins: ' , ' }, 'GATEHOUSE_CORS_INVALID_OPTIONS', /allowOrigins: is empty/],
    [{ allowMethods: 'GET, PO ST' }, 'GATEHOUSE_CORS_INVALID_OPTIONS', /allowMethods: "PO ST" is not a token/],
    [{ allowHeaders: ['x:y'] }, 'GATEHOUSE_CORS_INVALID_OPTIONS', /allowHeaders/],
    [{ exposeHeaders: '*', allowCredentials: true }, 'GATEHOUSE_CORS_INVALID_OPTIONS', /exposeHeaders: "\*" is only a wildcard without credentials/],
    [{ maxAge: -1 }, 'GATEHOUSE_CORE_INVALID_OPTIONS', /cors options\.maxAge/],
    [{ maxAge: 1.5 }, 'GATEHOUSE_CORE_INVALID_OPTIONS', /maxAge/],
    [{ allowCredentials: 'yes' }, 'GATEHOUSE_CORE_INVALID_OPTIONS', /allowCredentials/],
    [{ allow_origins: '*' }, 'GATEHOUSE_CORE_INVALID_OPTIONS', /allow_origins: unknown option \(options are camelCase: allowOrigins\)/],
    [{ allowOrigins: 42 }, 'GATEHOUSE_CORE_INVALID_OPTIONS', /cors options\.allowOrigins: expected union value/],
    [{ allowOrigins: /a/y }, 'GATEHOUSE_CORS_INVALID_OPTIONS', /allowOrigins: \/a\/y: the g and y flags/],
    [{ allowOrigins: { 'https://a.example': true } }, 'GATEHOUSE_CORS_INVALID_OPTIONS', /allowOrigins: \[object Object\] is not an origin, a list, a RegExp or a function/],
    [{ allowOrigins: new Date(0) }, 'GATEHOUSE_CORS_INVALID_OPTIONS', /allowOrigins: \[object Date\] is not an origin/],
    [{ optionsSuccessStatus: 404 }, 'GATEHOUSE_CORE_INVALID_OPTIONS', /cors options\.optionsSuccessStatus: expected integer to be less or equal to 299/],
    [{ optionsSuccessStatus: 199 }, 'GATEHOUSE_CORE_INVALID_OPTIONS', /optionsSuccessStatus/],
    [{ strictPreflight: 'yes' }, 'GATEHOUSE_CORE_INVALID_OPTIONS', /cors options\.strictPreflight: expected boolean/],
    [{ preflight: 0 }, 'GATEHOUSE_CORE_INVALID_OPTIONS', /cors options\.preflight: expected boolean/],
    [{ preflight: false, strictPreflight: true }, 'GATEHOUSE_CORS_INVALID_OPTIONS', /strictPreflight: applies only when cors answers preflights; it cannot be true with preflight: false/]
  ]
  for (const [options, code, message] of cases) {
    const app = Fastify()
    await t.rejects(async () => { await app.register(corsPlugin, options as never).ready() }, { code, message }, JSON.stringify(options))
    await app.close()
  }
})

test('config files use snake_case keys', async (t) => {
  const config = recipeFromConfig({ middleware: { cors: { allow_origins: 'https://a.example', allow_credentials: true, expose_headers: ['x-total'], max_age: 60, allow_methods: 'GET', allow_headers: '*', strict_preflight: true, options_success_status: 200, preflight: true } } }, { components: [corsPlugin] })
  t.same(config.middleware, { cors: { allowOrigins: 'https://a.example', allowCredentials: true, exposeHeaders: ['x-total'], maxAge: 60, allowMethods: 'GET', allowHeaders: '*', strictPreflight: true, optionsSuccessStatus: 200, preflight: true } })
  t.throws(() => recipeFromConfig({ middleware: { cors: { max_age: 'soon' } } }, { components: [corsPlugin] }), { code: 'GATEHOUSE_CORE_INVALID_OPTIONS', message: /middleware\.cors\.max_age/ })
  t.throws(() => recipeFromConfig({ middleware: { cors: { options_success_status: 404 } } }, { components: [corsPlugin] }), { code: 'GATEHOUSE_CORE_INVALID_OPTIONS', message: /middleware\.cors\.options_success_status/ })
})

test('works registered alone with app.register()', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(corsPlugin, { allowOrigins: ['https://a.example'], allowCredentials: true })
  app.get('/', async () => ({ ok: true }))
  const res = await app.inject({ url: '/', headers: { origin: 'https://a.example' } })
  t.same(corsHeaders(res), { 'access-control-allow-origin': 'https://a.example', 'access-control-allow-credentials': 'true' })
  t.equal(corsPlugin.component.order, 300)
  t.equal(corsPlugin.component.default, false)
})
