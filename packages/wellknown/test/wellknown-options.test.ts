import { test } from 'tap'
import Fastify from 'fastify'
import { recipeFromConfig } from '@fastify-gatehouse/core'
import { wellknownDefaults, wellknownPlugin, resolveWellKnownOptions } from '@fastify-gatehouse/wellknown'
import { build } from './helpers/build.js'

test('defaults: no documents, every well-known name 404; order 150, off', async (t) => {
  t.same(wellknownDefaults, { documents: {} })
  t.ok(Object.isFrozen(wellknownDefaults) && Object.isFrozen(wellknownDefaults.documents))
  t.same(resolveWellKnownOptions({}), wellknownDefaults)
  t.equal(wellknownPlugin.component.order, 150)
  t.equal(wellknownPlugin.component.default, false)
  const { app } = await build()
  t.teardown(() => app.close())
  t.equal((await app.inject('/.well-known/security.txt')).statusCode, 404)
})

test('bad documents are boot errors naming the entry', async (t) => {
  const cyclic: Record<string, unknown> = {}
  cyclic.self = cyclic
  const cases: Array<[Record<string, unknown>, string, RegExp]> = [
    [{ 'a/b': 'x' }, 'GATEHOUSE_WELLKNOWN_INVALID_DOCUMENT', /documents\["a\/b"\]: a name is one path segment/],
    [{ '.env': 'x' }, 'GATEHOUSE_WELLKNOWN_INVALID_DOCUMENT', /documents\["\.env"\]/],
    [{ '': 'x' }, 'GATEHOUSE_WELLKNOWN_INVALID_DOCUMENT', /documents\[""\]/],
    [{ 'has space': 'x' }, 'GATEHOUSE_WELLKNOWN_INVALID_DOCUMENT', /documents\["has space"\]/],
    [{ count: 42 }, 'GATEHOUSE_WELLKNOWN_INVALID_DOCUMENT', /documents\["count"\]: expected a string, an object or array \(JSON\), a function or a Redirect; got number/],
    [{ nothing: null }, 'GATEHOUSE_WELLKNOWN_INVALID_DOCUMENT', /documents\["nothing"\]: .*got null/],
    [{ when: new Date() }, 'GATEHOUSE_WELLKNOWN_INVALID_DOCUMENT', /documents\["when"\]: .*got Date/],
    [{ loop: cyclic }, 'GATEHOUSE_WELLKNOWN_INVALID_DOCUMENT', /documents\["loop"\]: cannot be serialised as JSON/],
    [{ big: { n: 10n } }, 'GATEHOUSE_WELLKNOWN_INVALID_DOCUMENT', /documents\["big"\]: cannot be serialised as JSON/],
    [{ 'security.txt': 'Expires: 2030-01-01T00:00:00Z\n' }, 'GATEHOUSE_WELLKNOWN_INVALID_DOCUMENT', /documents\["security.txt"\]: security.txt needs a Contact field \(RFC 9116\)/],
    [{ 'security.txt': 'Contact: mailto:a@example.com\n' }, 'GATEHOUSE_WELLKNOWN_INVALID_DOCUMENT', /security.txt needs a Expires field/],
    [{ 'security.txt': 'Contact: mailto:a@example.com\nExpires: someday\n' }, 'GATEHOUSE_WELLKNOWN_INVALID_DOCUMENT', /Expires "someday" is not an RFC 3339 date/]
  ]
  for (const [documents, code, message] of cases) {
    const app = Fastify()
    await t.rejects(async () => { await app.register(wellknownPlugin, { documents } as never).ready() }, { code, message }, Object.keys(documents)[0])
    await app.close()
  }
  const app = Fastify()
  await t.rejects(async () => { await app.register(wellknownPlugin, { docs: {} } as never).ready() }, { code: 'GATEHOUSE_CORE_INVALID_OPTIONS', message: /wellknown options\.docs: unknown option/ })
  await app.close()
  const other = Fastify()
  await t.rejects(async () => { await other.register(wellknownPlugin, { documents: 'x' } as never).ready() }, { code: 'GATEHOUSE_CORE_INVALID_OPTIONS', message: /documents/ })
  await other.close()
})

test('a document route that the application also declares is a boot error', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(wellknownPlugin, { documents: { 'security.txt': 'Contact: mailto:a@example.com\nExpires: 2030-01-01T00:00:00Z' } })
  await t.rejects(async () => {
    app.get('/.well-known/security.txt', async () => 'mine')
    await app.ready()
  }, { code: 'FST_ERR_DUPLICATED_ROUTE' })
})

test('config files: document names and JSON keys are kept as written', async (t) => {
  const config = recipeFromConfig({ middleware: { wellknown: { documents: { 'security.txt': 'Contact: x', 'openid-configuration': { token_endpoint: 'https://id.example.com/token' } } } } }, { components: [wellknownPlugin] })
  t.same(config.middleware, { wellknown: { documents: { 'security.txt': 'Contact: x', 'openid-configuration': { token_endpoint: 'https://id.example.com/token' } } } })
})
