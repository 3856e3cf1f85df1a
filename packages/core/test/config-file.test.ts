import { test } from 'tap'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Type } from '@sinclair/typebox'
import { defineComponent, loadRecipe, recipeFromConfig } from '@fastify-gatehouse/core'

const COMPONENTS = [
  defineComponent({ name: 'errors', order: 100, default: true, schema: Type.Object({ debug: Type.Optional(Type.Boolean()) }, { additionalProperties: false }), plugin: async () => {} }),
  defineComponent({
    name: 'compression',
    order: 900,
    schema: Type.Object({ minimumSize: Type.Optional(Type.Integer()), level: Type.Optional(Type.Integer()) }, { additionalProperties: false }),
    plugin: async () => {}
  }),
  defineComponent({
    name: 'wellknown',
    order: 150,
    schema: Type.Object({ documents: Type.Optional(Type.Record(Type.String(), Type.Unknown())) }, { additionalProperties: false }),
    plugin: async () => {}
  }),
  defineComponent({
    name: 'auth',
    order: 400,
    schema: Type.Object({
      basic: Type.Optional(Type.Record(Type.String(), Type.Object({ password: Type.String(), tags: Type.Optional(Type.String()) }, { additionalProperties: false })))
    }),
    plugin: async () => {}
  })
]

const serverAppSchema = Type.Object({
  login: Type.Optional(Type.Object({ maxAttempts: Type.Optional(Type.Integer()), backoff: Type.Optional(Type.Number()) }, { additionalProperties: false }))
}, { additionalProperties: false })

test('a YAML file maps snake_case keys to the camelCase API', async (t) => {
  const dir = t.testdir({
    'gatehouse.yaml': `
server:
  host: 127.0.0.1
  port: 8000
  external_url: https://app.example.com
middleware:
  errors: on
  compression:
    minimum_size: 1000
  wellknown:
    documents:
      security.txt: "Contact: mailto:sec@example.com"
      change_password: /account/password
auth_middleware:
  basic:
    ci_bot: { password: s3cret, tags: "ci" }
server_app:
  login:
    max_attempts: 3
    backoff: 10
`
  })
  const config = await loadRecipe(join(dir, 'gatehouse.yaml'), { components: COMPONENTS, serverAppSchema })
  t.same(config, {
    server: { host: '127.0.0.1', port: 8000, externalUrl: 'https://app.example.com' },
    middleware: {
      errors: 'on',
      compression: { minimumSize: 1000 },
      wellknown: { documents: { 'security.txt': 'Contact: mailto:sec@example.com', change_password: '/account/password' } }
    },
    authMiddleware: { basic: { ci_bot: { password: 's3cret', tags: 'ci' } } },
    serverApp: { login: { maxAttempts: 3, backoff: 10 } }
  }, 'map keys (user names, document names) are kept as written')
})

test('a JSON file works the same', async (t) => {
  const dir = t.testdir({ 'g.json': JSON.stringify({ middleware: { compression: { minimum_size: 10 } } }) })
  t.same(await loadRecipe(join(dir, 'g.json'), { components: COMPONENTS }), { middleware: { compression: { minimumSize: 10 } } })
})

test('an empty file is an empty recipe', async (t) => {
  const dir = t.testdir({ 'empty.yml': '' })
  t.same(await loadRecipe(join(dir, 'empty.yml'), { components: COMPONENTS }), {})
})

test('a bad key or type is reported with its path as written', async (t) => {
  const cases: Array<[unknown, string | RegExp]> = [
    [{ middleware: { compression: { minimum_size: 'big' } } }, 'middleware.compression.minimum_size: expected integer'],
    [{ middleware: { compression: { minimumSize: 5 } } }, 'middleware.compression.minimumSize: unknown option (config files use snake_case: minimum_size)'],
    [{ middleware: { compression: { level: 1, colour: 'red' } } }, 'middleware.compression.colour: unknown option'],
    [{ middleware: { gzip: true } }, /^Unknown component "gzip" \(known: auth, compression, errors, wellknown\)/],
    [{ middleware: { errors: 'maybe' } }, /^middleware\.errors: expected true, false, 'on', 'off'/],
    [{ middleware: 3 }, 'middleware: expected a mapping'],
    [{ server: { port: 'eighty' } }, 'server.port: expected integer'],
    [{ server: { port: 70000 } }, /^server\.port: expected integer to be less or equal to 65535/],
    [{ server: { external_url: 'ftp://x' } }, /^server\.external_url: expected string to match/],
    [{ server: { hostname: 'x' } }, 'server.hostname: unknown option'],
    [{ auth_middleware: { basic: { ci_bot: { password: 1 } } } }, 'auth_middleware.basic.ci_bot.password: expected string'],
    [{ auth_middleware: { basic: { ci_bot: {} } } }, 'auth_middleware.basic.ci_bot.password: is required'],
    [{ server_app: { login: {} } }, /^server_app: this section is read by @fastify-gatehouse\/server/],
    [{ servers: {} }, /^servers: unknown section/],
    [[1, 2], 'config: expected a mapping at the top level']
  ]
  for (const [config, message] of cases) {
    t.throws(() => recipeFromConfig(config, { components: COMPONENTS }), { message }, JSON.stringify(config))
  }
  t.throws(() => recipeFromConfig({ server_app: { login: { max_attempts: 'x' } } }, { components: COMPONENTS, serverAppSchema }),
    { code: 'GATEHOUSE_CORE_INVALID_OPTIONS', message: 'server_app.login.max_attempts: expected integer' })
})

test('file errors name the file', async (t) => {
  const dir = t.testdir({
    'broken.yaml': 'middleware:\n  errors: [unclosed\n',
    'dupe.yaml': 'middleware: {}\nmiddleware: {}\n',
    'broken.json': '{"middleware": ',
    'bad.yaml': 'middleware:\n  compression:\n    minimum_size: nope\n',
    'config.toml': ''
  })
  await t.rejects(loadRecipe(join(dir, 'broken.yaml'), { components: COMPONENTS }),
    { code: 'GATEHOUSE_CORE_CONFIG_FILE', message: new RegExp(`^Cannot load config file ${dir}/broken\\.yaml: `) })
  await t.rejects(loadRecipe(join(dir, 'dupe.yaml'), { components: COMPONENTS }), { code: 'GATEHOUSE_CORE_CONFIG_FILE', message: /unique/i })
  await t.rejects(loadRecipe(join(dir, 'broken.json'), { components: COMPONENTS }), { code: 'GATEHOUSE_CORE_CONFIG_FILE' })
  await t.rejects(loadRecipe(join(dir, 'missing.yaml'), { components: COMPONENTS }), { code: 'GATEHOUSE_CORE_CONFIG_FILE', message: /ENOENT/ })
  await t.rejects(loadRecipe(join(dir, 'config.toml'), { components: COMPONENTS }), { code: 'GATEHOUSE_CORE_CONFIG_FILE', message: /\.yaml, \.yml or \.json/ })
  await t.rejects(loadRecipe(join(dir, 'bad.yaml'), { components: COMPONENTS }),
    { code: 'GATEHOUSE_CORE_INVALID_OPTIONS', message: `${join(dir, 'bad.yaml')}: middleware.compression.minimum_size: expected integer` })
})

test('a file over 1 MiB is refused', async (t) => {
  const dir = t.testdir({})
  const path = join(dir, 'huge.json')
  writeFileSync(path, JSON.stringify({ pad: 'x'.repeat(1024 * 1024) }))
  await t.rejects(loadRecipe(path, { components: COMPONENTS }), { code: 'GATEHOUSE_CORE_CONFIG_FILE', message: /larger than/ })
})

test('a YAML alias bomb is refused, not expanded', async (t) => {
  const lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]']
  for (let i = 0; i < 12; i++) lines.push(`${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(9).fill('*' + String.fromCharCode(97 + i)).join(',')}]`)
  const dir = t.testdir({ 'bomb.yaml': lines.join('\n') + '\n' })
  await t.rejects(loadRecipe(join(dir, 'bomb.yaml'), { components: COMPONENTS }), { code: 'GATEHOUSE_CORE_CONFIG_FILE' })
})

test('the server section carries the server limits, snake_case, checked like the rest', async (t) => {
  const config = recipeFromConfig({ server: { host: '127.0.0.1', request_timeout: 30_000, headers_timeout: 10_000, keep_alive_timeout: 5000, connection_timeout: 0, body_limit: 4096, max_connections: 100, max_requests_per_socket: 50 } }, { components: COMPONENTS })
  t.same(config.server, { host: '127.0.0.1', requestTimeout: 30_000, headersTimeout: 10_000, keepAliveTimeout: 5000, connectionTimeout: 0, bodyLimit: 4096, maxConnections: 100, maxRequestsPerSocket: 50 })
  const bad: Array<[Record<string, unknown>, string]> = [
    [{ request_timout: 1 }, 'server.request_timout: unknown option'],
    [{ requestTimeout: 1 }, 'server.requestTimeout: unknown option (config files use snake_case: request_timeout)'],
    [{ body_limit: 'big' }, 'server.body_limit: expected integer'],
    [{ keep_alive_timeout: 0 }, 'server.keep_alive_timeout: expected integer to be greater or equal to 1'],
    [{ headers_timeout: 90_000 }, 'server.headers_timeout: 90000 ms must not exceed request_timeout (60000 ms): the head is part of the request']
  ]
  for (const [server, message] of bad) {
    t.throws(() => recipeFromConfig({ server }, { components: COMPONENTS }), { code: 'GATEHOUSE_CORE_INVALID_OPTIONS', message }, message)
  }
})
