// Secrets in config files come from the environment or a file (DESIGN §11):
// `!env NAME` / `!file PATH` in YAML, `{ "$env": NAME }` / `{ "$file": PATH }`
// in JSON (and YAML). A failure names the key path and the variable or
// file, never the value. D-CONFIG-07, D-CONFIG-08.
import { test } from 'tap'
import { chmodSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Type } from '@sinclair/typebox'
import { defineComponent, loadRecipe } from '@fastify-gatehouse/core'

const COMPONENTS = [
  defineComponent({
    name: 'auth',
    order: 400,
    schema: Type.Object({
      basic: Type.Optional(Type.Record(Type.String(), Type.Object({ password: Type.String() }, { additionalProperties: false }))),
      bearer: Type.Optional(Type.Record(Type.String(), Type.Object({ token: Type.String() }, { additionalProperties: false }))),
      jwt: Type.Optional(Type.Array(Type.Object({ name: Type.String(), secret: Type.String() }, { additionalProperties: false })))
    }, { additionalProperties: false }),
    plugin: async () => {}
  })
]

// Every character YAML, JSON or a shell treats specially, and a space at each end.
const SPECIAL = ' p@ss: w0rd # "quoted" \'single\' $HOME $' + '{X} {a: [b]} \\ tab\there é ✓ '

function tokens (config: Awaited<ReturnType<typeof loadRecipe>>): unknown {
  return config.authMiddleware
}

test('!env and !file in YAML, the same as { $env } and { $file } in JSON and in YAML', async (t) => {
  const dir = t.testdir({
    'token.txt': 'from-a-file\n',
    secrets: { 'jwt.txt': 'jwt-secret\r\n\r\n' },
    'tags.yaml': `auth_middleware:
  bearer:
    ci: { token: !env DEPLOY_TOKEN }
    cd: { token: !file ./token.txt }
  jwt:
    - { name: idp, secret: !file secrets/jwt.txt }
`,
    'objects.yaml': `auth_middleware:
  bearer:
    ci: { token: { $env: DEPLOY_TOKEN } }
    cd: { token: { $file: ./token.txt } }
  jwt:
    - { name: idp, secret: { $file: secrets/jwt.txt } }
`,
    'objects.json': JSON.stringify({
      auth_middleware: {
        bearer: { ci: { token: { $env: 'DEPLOY_TOKEN' } }, cd: { token: { $file: './token.txt' } } },
        jwt: [{ name: 'idp', secret: { $file: 'secrets/jwt.txt' } }]
      }
    })
  })
  const expected = { bearer: { ci: { token: 'from-the-env' }, cd: { token: 'from-a-file' } }, jwt: [{ name: 'idp', secret: 'jwt-secret' }] }
  for (const file of ['tags.yaml', 'objects.yaml', 'objects.json']) {
    t.same(tokens(await loadRecipe(join(dir, file), { components: COMPONENTS, env: { DEPLOY_TOKEN: 'from-the-env' } })), expected, file)
  }
})

test('a value with special characters arrives exactly; a file loses only its trailing line breaks', async (t) => {
  const dir = t.testdir({
    'password.txt': `${SPECIAL}\n`,
    'pem.txt': '-----BEGIN KEY-----\nabc\ndef\n-----END KEY-----\n\n',
    'g.yaml': 'auth_middleware:\n  basic:\n    env: { password: !env PASSWORD }\n    file: { password: !file password.txt }\n    pem: { password: !file pem.txt }\n',
    'g.json': '{ "auth_middleware": { "basic": { "env": { "password": { "$env": "PASSWORD" } }, "file": { "password": { "$file": "password.txt" } } } } }'
  })
  const yaml = await loadRecipe(join(dir, 'g.yaml'), { components: COMPONENTS, env: { PASSWORD: SPECIAL } })
  t.same(tokens(yaml), { basic: { env: { password: SPECIAL }, file: { password: SPECIAL }, pem: { password: '-----BEGIN KEY-----\nabc\ndef\n-----END KEY-----' } } })
  const json = await loadRecipe(join(dir, 'g.json'), { components: COMPONENTS, env: { PASSWORD: SPECIAL } })
  t.same(tokens(json), { basic: { env: { password: SPECIAL }, file: { password: SPECIAL } } })
})

test('NAME_FILE: the container convention, when NAME is unset', async (t) => {
  const dir = t.testdir({ run: { deploy_token: 'from-docker-secret\n' }, 'g.yaml': 'auth_middleware:\n  bearer:\n    ci: { token: !env DEPLOY_TOKEN }\n' })
  const config = await loadRecipe(join(dir, 'g.yaml'), { components: COMPONENTS, env: { DEPLOY_TOKEN_FILE: join(dir, 'run', 'deploy_token') } })
  t.same(tokens(config), { bearer: { ci: { token: 'from-docker-secret' } } })
  await t.rejects(loadRecipe(join(dir, 'g.yaml'), { components: COMPONENTS, env: { DEPLOY_TOKEN: 'x', DEPLOY_TOKEN_FILE: join(dir, 'run', 'deploy_token') } }), {
    code: 'GATEHOUSE_CORE_CONFIG_SECRET',
    message: `${join(dir, 'g.yaml')}: auth_middleware.bearer.ci.token: both DEPLOY_TOKEN and DEPLOY_TOKEN_FILE are set: set one`
  })
})

test('each failure: the key path and the variable or file named, the code, never the value', async (t) => {
  const SECRET = 'Zx9-never-shown-Q7'
  const dir = t.testdir({
    'empty.txt': '\n',
    'big.txt': 'x'.repeat(64 * 1024 + 1),
    'latin1.txt': Buffer.from([0x70, 0xe4, 0x73, 0x73]),
    folder: {},
    'locked.txt': SECRET
  })
  chmodSync(join(dir, 'locked.txt'), 0o000)
  t.teardown(() => { try { chmodSync(join(dir, 'locked.txt'), 0o600) } catch {} })
  const cases: Array<[string, Record<string, string>, string]> = [
    ['!env DEPLOY_TOKEN', {}, 'environment variable DEPLOY_TOKEN is not set (nor DEPLOY_TOKEN_FILE, a file holding it)'],
    ['!env DEPLOY_TOKEN', { DEPLOY_TOKEN: '' }, 'environment variable DEPLOY_TOKEN is empty'],
    [`!env ${SECRET}`, {}, '!env takes the name of an environment variable (letters, digits and _, not starting with a digit)'],
    ['!env', {}, '!env takes the name of an environment variable (letters, digits and _, not starting with a digit)'],
    ['!file missing.txt', {}, 'file missing.txt does not exist'],
    ['!file empty.txt', {}, 'file empty.txt is empty'],
    ['!file big.txt', {}, 'file big.txt is larger than 65536 bytes'],
    ['!file latin1.txt', {}, 'file latin1.txt is not UTF-8 text'],
    ['!file folder', {}, 'file folder is not a regular file'],
    ['!file', {}, '!file takes a file path'],
    ['!env DEPLOY_TOKEN', { DEPLOY_TOKEN_FILE: 'missing.txt' }, 'file missing.txt (from DEPLOY_TOKEN_FILE) does not exist'],
    ['!env DEPLOY_TOKEN', { DEPLOY_TOKEN_FILE: '' }, 'DEPLOY_TOKEN_FILE is empty'],
    ['{ $env: DEPLOY_TOKEN, tags: ops }', { DEPLOY_TOKEN: SECRET }, '{ "$env": … } takes no other key'],
    ['{ $env: 12 }', {}, '"$env" takes the name of an environment variable'],
    ['{ $file: [a] }', {}, '"$file" takes a file path'],
    // eslint-disable-next-line no-template-curly-in-string -- the literal a user wrote, not expanded
    ['"${DEPLOY_TOKEN}"', { DEPLOY_TOKEN: SECRET }, '${DEPLOY_TOKEN} is not expanded: write !env DEPLOY_TOKEN (YAML) or { "$env": "DEPLOY_TOKEN" } (JSON), the whole value coming from the variable']
  ]
  // root reads any file: the permission case only where it can fail.
  if (process.getuid?.() !== 0) cases.push(['!file locked.txt', {}, 'file locked.txt cannot be read (permission denied)'])
  for (const [value, env, problem] of cases) {
    const file = join(dir, 'g.yaml')
    writeFileSync(file, `auth_middleware:\n  bearer:\n    ci:\n      token: ${value}\n`)
    const err = await loadRecipe(file, { components: COMPONENTS, env }).then(() => undefined, (e: unknown) => e as Error & { code: string })
    t.equal(err?.code, 'GATEHOUSE_CORE_CONFIG_SECRET', value)
    t.equal(err?.message, `${file}: auth_middleware.bearer.ci.token: ${problem}`, value)
    t.notOk(err?.message.includes(SECRET), `${value}: the value is not in the message`)
  }
})

test('a reference inside a list is named by its index; a relative path starts at the config file, not the working directory', async (t) => {
  const dir = t.testdir({ deploy: { 'g.yaml': 'auth_middleware:\n  jwt:\n    - { name: a, secret: !file ./a.txt }\n    - { name: b, secret: !file ./b.txt }\n', 'a.txt': 'a' } })
  await t.rejects(loadRecipe(join(dir, 'deploy', 'g.yaml'), { components: COMPONENTS, env: {} }),
    { code: 'GATEHOUSE_CORE_CONFIG_SECRET', message: `${join(dir, 'deploy', 'g.yaml')}: auth_middleware.jwt[1].secret: file ./b.txt does not exist` })
  writeFileSync(join(dir, 'deploy', 'b.txt'), 'b')
  t.same(tokens(await loadRecipe(join(dir, 'deploy', 'g.yaml'), { components: COMPONENTS, env: {} })), { jwt: [{ name: 'a', secret: 'a' }, { name: 'b', secret: 'b' }] })
})

test('a value from !env is a string: where a number is wanted, the error says so', async (t) => {
  const dir = t.testdir({ 'g.yaml': 'server:\n  port: !env PORT\n', 'h.yaml': 'server:\n  port: "8000"\n' })
  await t.rejects(loadRecipe(join(dir, 'g.yaml'), { env: { PORT: '8000' } }), {
    code: 'GATEHOUSE_CORE_INVALID_OPTIONS',
    message: `${join(dir, 'g.yaml')}: server.port: expected integer (a value from !env or !file is a string: write numbers and booleans in the file)`
  })
  await t.rejects(loadRecipe(join(dir, 'h.yaml'), { env: {} }), { message: `${join(dir, 'h.yaml')}: server.port: expected integer` }, 'no hint for a literal')
})

test('an unknown tag, or !env on a mapping, stops the load where it is written', async (t) => {
  const dir = t.testdir({ 'secret.yaml': 'auth_middleware:\n  bearer:\n    ci: { token: !secret DEPLOY_TOKEN }\n', 'map.yaml': 'auth_middleware:\n  bearer:\n    ci: !env { token: x }\n' })
  await t.rejects(loadRecipe(join(dir, 'secret.yaml'), { components: COMPONENTS, env: {} }),
    { code: 'GATEHOUSE_CORE_CONFIG_FILE', message: `Cannot load config file ${join(dir, 'secret.yaml')}: Unresolved tag (a config file knows only !env and !file, on a value) at line 3, column 18:\n  3 |     ci: { token: [REDACTED]\n    |                  ^` })
  await t.rejects(loadRecipe(join(dir, 'map.yaml'), { components: COMPONENTS, env: {} }),
    { code: 'GATEHOUSE_CORE_CONFIG_FILE', message: `Cannot load config file ${join(dir, 'map.yaml')}: Unresolved tag (a config file knows only !env and !file, on a value) at line 3, column 9:\n  3 |     ci: !env { token: [REDACTED]\n    |         ^` })
})

test('process.env by default', async (t) => {
  const dir = t.testdir({ 'g.yaml': 'auth_middleware:\n  bearer:\n    ci: { token: !env GATEHOUSE_TEST_CONFIG_TOKEN }\n' })
  process.env.GATEHOUSE_TEST_CONFIG_TOKEN = 'from-process-env'
  t.teardown(() => { delete process.env.GATEHOUSE_TEST_CONFIG_TOKEN })
  t.same(tokens(await loadRecipe(join(dir, 'g.yaml'), { components: COMPONENTS })), { bearer: { ci: { token: 'from-process-env' } } })
})

// A literal secret is read as written, `${…}` inside it included: only a
// value that is nothing but `${NAME}` (a reference, no secret) is refused
// (issue 25 review, item 5; D-CONFIG-15).
test('a literal secret holding a dollar-brace reference among other text is read as written, never refused nor quoted', async (t) => {
  // eslint-disable-next-line no-template-curly-in-string -- a literal password, not a template
  const PASSWORD = 'pa${ss}word-9'
  // eslint-disable-next-line no-template-curly-in-string -- a literal token with a leading space, not a template
  const TOKEN = ' ${DEPLOY_TOKEN}'
  const dir = t.testdir({
    'g.yaml': `auth_middleware:\n  basic:\n    bob: { password: "${PASSWORD}" }\n  bearer:\n    ci: { token: "${TOKEN}" }\n`
  })
  const config = await loadRecipe(join(dir, 'g.yaml'), { components: COMPONENTS, env: { ss: 'expanded', DEPLOY_TOKEN: 'expanded' } })
  t.same(tokens(config), { basic: { bob: { password: PASSWORD } }, bearer: { ci: { token: TOKEN } } }, 'both exactly as written')
})
