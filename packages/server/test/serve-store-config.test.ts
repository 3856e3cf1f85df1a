// The stores of a config file (server_app.store, middleware.session.store,
// server_app.login.store) are read in one place, store-config.ts: a folder,
// { redis: … } or { postgres: … }, each checked before anything opens.
// Bad forms run through runCli in this process; nothing connects.
import { test } from 'tap'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { parseStoreConfig } from '../src/cli/store-config.js'
import { gatehouse } from './helpers/cli.js'

const PG = "'postgres://gate:s3cret-pw@127.0.0.1:1/app'"

// [file content, the one line expected on stderr (after "gatehouse: <file>: ")]
const BAD: Array<[string, string, RegExp]> = [
  ['users-number', 'server_app:\n  store: 42\n', /server_app\.store: expected a folder or \{ postgres: "postgres:\/\/user@host:port\/db" \}$/],
  ['users-empty', "server_app:\n  store: ''\n", /server_app\.store: expected a folder or \{ postgres: .*, not an empty string$/],
  ['users-list', 'server_app:\n  store: [a, b]\n', /server_app\.store: expected a folder or \{ postgres: /],
  ['users-scheme', "server_app:\n  store: { postgres: 'mysql://gate:s3cret-pw@127.0.0.1/app' }\n", /server_app\.store\.postgres: unsupported scheme "mysql:" \(expected postgres: or postgresql:\)$/],
  ['users-not-url', "server_app:\n  store: { postgres: 'db.internal:5432' }\n", /server_app\.store\.postgres: (not a URL|unsupported scheme)/],
  ['users-no-url', 'server_app:\n  store: { postgres: 5432 }\n', /server_app\.store\.postgres: expected a postgres:\/\/ URL$/],
  ['users-no-host', "server_app:\n  store: { postgres: 'postgres:///app' }\n", /server_app\.store\.postgres: the URL names no host$/],
  ['users-camel', `server_app:\n  store: { postgres: ${PG}, tablePrefix: gh_ }\n`, /server_app\.store\.tablePrefix: unknown option \(config files use snake_case: table_prefix\)$/],
  ['users-unknown', `server_app:\n  store: { postgres: ${PG}, pool_max: 3 }\n`, /server_app\.store\.pool_max: unknown option$/],
  ['users-redis-key', `server_app:\n  store: { postgres: ${PG}, prefix: 'gh:' }\n`, /server_app\.store\.prefix: unknown option$/],
  ['users-schema', `server_app:\n  store: { postgres: ${PG}, schema: Bad-Name }\n`, /server_app\.store\.schema: expected a schema name of lower-case letters/],
  ['users-prefix', `server_app:\n  store: { postgres: ${PG}, table_prefix: 1x }\n`, /server_app\.store\.table_prefix: expected "" or lower-case letters/],
  ['users-migrate', `server_app:\n  store: { postgres: ${PG}, migrate: 'yes' }\n`, /server_app\.store\.migrate: expected true or false$/],
  ['users-both', `server_app:\n  store: { postgres: ${PG}, redis: 'redis://127.0.0.1:6379' }\n`, /server_app\.store: give one of redis and postgres, not both$/],
  ['users-redis', "server_app:\n  store: { redis: 'redis://127.0.0.1:6379' }\n", /server_app\.store\.redis: this store cannot live in Redis; expected a folder or \{ postgres: /],
  ['session-string', `middleware:\n  session:\n    store: ${PG}\n`, /middleware\.session\.store: expected \{ redis: "redis:\/\/host:port\/db" \} or \{ postgres: "postgres:\/\/user@host:port\/db" \}$/],
  ['session-scheme', "middleware:\n  session:\n    store: { postgres: 'redis://127.0.0.1:6379' }\n", /middleware\.session\.store\.postgres: unsupported scheme "redis:"/],
  ['session-both', `middleware:\n  session:\n    store: { redis: 'redis://127.0.0.1:6379', postgres: ${PG} }\n`, /middleware\.session\.store: give one of redis and postgres, not both$/],
  ['session-prefix', `middleware:\n  session:\n    store: { postgres: ${PG}, prefix: 'gatehouse:sess:' }\n`, /middleware\.session\.store\.prefix: unknown option$/],
  ['session-camel', `middleware:\n  session:\n    store: { postgres: ${PG}, tablePrefix: gh_ }\n`, /middleware\.session\.store\.tablePrefix: unknown option \(config files use snake_case: table_prefix\)$/],
  ['login-url', `server_app:\n  login:\n    store: { url: ${PG} }\n`, /server_app\.login\.store: expected \{ redis: .* or \{ postgres: /],
  ['login-both', `server_app:\n  login:\n    store: { postgres: ${PG}, redis: 'redis://127.0.0.1:6379' }\n`, /server_app\.login\.store: give one of redis and postgres, not both$/],
  ['login-schema', `server_app:\n  login:\n    store: { postgres: ${PG}, schema: 'a b' }\n`, /server_app\.login\.store\.schema: expected a schema name/],
  ['login-folder', 'server_app:\n  login:\n    store: ./data\n', /server_app\.login\.store: expected \{ redis: /]
]

test('gatehouse serve: every bad store form is a boot error naming the key as written, no password, nothing opened', async (t) => {
  const dir = t.testdir(Object.fromEntries(BAD.map(([name, yaml]) => [`${name}.yaml`, yaml])))
  for (const [name, , message] of BAD) {
    const res = await gatehouse(['serve', '--config', `${name}.yaml`, '--port', '0'], { cwd: dir, env: {}, cleanEnv: true })
    t.equal(res.code, 1, name)
    t.equal(res.stdout, '', `${name}: nothing served`)
    const lines = res.stderr.split('\n').filter((line) => line !== '')
    t.equal(lines.length, 1, `${name}: one line`)
    t.match(lines[0], new RegExp(`^gatehouse: ${join(dir, `${name}.yaml`).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: `), `${name}: names the file`)
    t.match(lines[0], message, name)
    t.notMatch(res.stderr, /s3cret-pw/, `${name}: the password is never shown`)
  }
})

test('the stores are all checked before any opens: a good folder is not created when another store is bad', async (t) => {
  const dir = t.testdir({
    'gatehouse.yaml': "server_app:\n  store: ./data\n  login:\n    store: { postgres: 'postgres://127.0.0.1/app', migrate: 1 }\n"
  })
  const res = await gatehouse(['serve', '--config', 'gatehouse.yaml', '--port', '0'], { cwd: dir, env: {}, cleanEnv: true })
  t.equal(res.code, 1)
  t.match(res.stderr, /server_app\.login\.store\.migrate: expected true or false\n$/)
  t.notMatch(res.stderr, /starting an empty one/)
  t.notOk(existsSync(join(dir, 'data')), 'the folder store was not started')
})

test('parseStoreConfig: the good forms, as a tagged union in camelCase', async (t) => {
  const base = '/etc/gatehouse'
  t.same(await parseStoreConfig('./data', 'server_app.store', ['folder', 'postgres'], base), { kind: 'folder', dir: '/etc/gatehouse/data' }, 'a folder, relative to the file')
  t.same(await parseStoreConfig('/var/lib/gh', 'server_app.store', ['folder', 'postgres'], base), { kind: 'folder', dir: '/var/lib/gh' })
  t.same(await parseStoreConfig({ postgres: 'postgres://gate@db:5432/app' }, 'server_app.store', ['folder', 'postgres'], base),
    { kind: 'postgres', url: 'postgres://gate@db:5432/app' })
  t.same(await parseStoreConfig({ postgres: 'postgresql://db/app', schema: 'auth', table_prefix: 'gh_', migrate: true }, 'server_app.store', ['folder', 'postgres'], base),
    { kind: 'postgres', url: 'postgresql://db/app', schema: 'auth', tablePrefix: 'gh_', migrate: true })
  t.same(await parseStoreConfig({ postgres: 'postgres://db/app', table_prefix: '' }, 'server_app.login.store', ['redis', 'postgres'], base),
    { kind: 'postgres', url: 'postgres://db/app', tablePrefix: '' }, 'an empty prefix is the default, allowed')
  t.same(await parseStoreConfig({ redis: 'redis://127.0.0.1:6379/2', prefix: 'gh:sess:' }, 'middleware.session.store', ['redis', 'postgres'], base),
    { kind: 'redis', url: 'redis://127.0.0.1:6379/2', prefix: 'gh:sess:' })
  await t.rejects(parseStoreConfig('./data', 'middleware.session.store', ['redis', 'postgres'], base), { code: 'GATEHOUSE_SERVER_INVALID_OPTIONS' }, 'a folder only where it is allowed')
})
