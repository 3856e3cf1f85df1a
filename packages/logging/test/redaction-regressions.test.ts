import { test } from 'tap'
import Fastify, { LogController, type FastifyBaseLogger } from 'fastify'
import pino from 'pino'
import { errorForLog, middlewareChain, recipeFromConfig, defineComponent } from '@fastify-gatehouse/core'
import { Type } from '@sinclair/typebox'
import { errorsPlugin } from '@fastify-gatehouse/errors'
import { loggingPlugin } from '@fastify-gatehouse/logging'

const KEY = 'gak_0123456789abcdef_PATHSECRETpathsecret0123456789'

test('keys in paths, encoded keys in queries, odd cookies and secret-named headers are redacted', async (t) => {
  const lines: string[] = []
  const app = Fastify({ loggerInstance: pino({ level: 'debug' }, { write: (l: string) => { lines.push(l) } }) as FastifyBaseLogger, logController: new LogController({ disableRequestLogging: true }) })
  t.teardown(() => app.close())
  await middlewareChain(app, { middleware: { logging: { includeQuery: true, includeHeaders: true } } }, { components: [errorsPlugin, loggingPlugin] })
  app.get('/keys/:key', async (_req, reply) => reply.header('location', '/next?access_token=LOCATIONSECRET').send('ok'))
  await app.inject({
    url: `/keys/${KEY}?q=${encodeURIComponent(KEY).replace('_', '%5F')}&code_verifier=VERIFIERSECRET&jwt=JWTSECRET`,
    headers: { cookie: 'BARECOOKIESECRET; a=b', 'x-upstream-token': 'UPSTREAMSECRET', 'api-key': 'APIKEYSECRET' }
  })
  await app.inject(`/missing/${KEY}`)
  const all = lines.join('\n')
  for (const secret of ['PATHSECRET', 'VERIFIERSECRET', 'JWTSECRET', 'BARECOOKIESECRET', 'UPSTREAMSECRET', 'APIKEYSECRET', 'LOCATIONSECRET']) {
    t.notOk(all.includes(secret), `${secret} is not logged`)
  }
  t.match(all, 'gak_0123456789abcdef_[REDACTED]', 'the key id stays visible')
})

test('errorForLog masks nested secrets and keeps the cause, redacted', async (t) => {
  const cause = new Error('redis said Bearer CAUSESECRET')
  const err = Object.assign(new Error('upstream failed', { cause }), { config: { headers: { Authorization: 'Bearer NESTEDSECRET', accept: 'json' }, url: '/x' } })
  const lines: string[] = []
  pino({}, { write: (l: string) => { lines.push(l) } }).error({ err: errorForLog(err) }, 'x')
  t.notMatch(lines[0], /NESTEDSECRET|CAUSESECRET/)
  t.match(lines[0], /redis said Bearer \[REDACTED\]/, 'the cause is logged')
  t.match(lines[0], /"accept":"json"/, 'harmless fields stay')
})

test('config maps accept any own key; __proto__ is refused; missing keys are named in snake_case', async (t) => {
  const components = [defineComponent({
    name: 'auth',
    schema: Type.Object({ basic: Type.Optional(Type.Record(Type.String(), Type.Object({ passwordHash: Type.String() }, { additionalProperties: false }))) }),
    plugin: async () => {}
  })]
  const ok = recipeFromConfig({ auth_middleware: { basic: { constructor: { password_hash: 'x' }, toString: { password_hash: 'y' } } } }, { components })
  t.same(Object.keys(ok.authMiddleware?.basic as object), ['constructor', 'toString'])
  t.throws(() => recipeFromConfig(JSON.parse('{"auth_middleware":{"basic":{"__proto__":{"password_hash":"x"}}}}'), { components }), { message: 'auth_middleware.basic.__proto__: not allowed as a key' })
  t.throws(() => recipeFromConfig({ auth_middleware: { basic: { alice: {} } } }, { components }), { message: 'auth_middleware.basic.alice.password_hash: is required' })
})
