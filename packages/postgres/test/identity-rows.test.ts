import t from 'tap'
import pg from 'pg'
import { hashPassword, type StoredApiKey, type StoredUser } from '@fastify-gatehouse/auth'
import { PostgresApiKeyStore, PostgresUserStore } from '../src/index.js'
import { sqlNames } from '../src/names.js'
import { apiKeyStatements } from '../src/sql/api-key-statements.js'
import { userStatements } from '../src/sql/user-statements.js'
import { countStatements, FAST_SCRYPT, ownDatabase, secretHashOf } from './helpers/identity.js'
import { needPostgres } from './helpers/postgres.js'

const options = await needPostgres()

t.test('secrets at rest: scrypt strings and SHA-256 digests, never the secret', options, async (t) => {
  const { url, admin, closeLater } = await ownDatabase(t)
  const users = closeLater(await PostgresUserStore.connect({ url, scrypt: FAST_SCRYPT }))
  const keys = closeLater(await PostgresApiKeyStore.connect({ url }))

  await users.add('alice', { password: 'correct horse battery', tags: 'ops' })
  const { rows: [user] } = await admin.query('select * from gatehouse.users')
  t.match(user.password_hash, /^scrypt\$1024,8,1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/, 'an scrypt string with its parameters')
  t.notMatch(JSON.stringify(user), /correct horse/, 'no password in the row')
  await users.setPassword('alice', 'another secret phrase')
  const { rows: [changed] } = await admin.query('select * from gatehouse.users')
  t.not(changed.password_hash, user.password_hash)
  t.notMatch(JSON.stringify(changed), /another secret/, 'nor after a change')

  const { key, record } = await keys.issue({ label: 'ci', tags: 'deploy' })
  const secret = key.slice(21)
  const { rows: [row] } = await admin.query('select * from gatehouse.api_keys')
  t.equal(row.key_id, record.keyId)
  t.equal(row.secret_hash, secretHashOf(key), 'sha256$<base64url of the secret\'s SHA-256>')
  t.notOk(JSON.stringify(row).includes(secret), 'no secret in the row')
  t.notOk(JSON.stringify(await keys.list()).includes('sha256'), 'list shows no digest')
})

t.test('hot queries use the primary keys (seq scans off, EXPLAIN)', options, async (t) => {
  const { admin } = await ownDatabase(t)
  const users = userStatements(sqlNames('gatehouse', ''))
  const keys = apiKeyStatements(sqlNames('gatehouse', ''))
  const client = await admin.connect()
  t.teardown(() => { client.release() })
  await client.query('set enable_seqscan = off')
  await client.query('set enable_bitmapscan = off')
  const now = new Date().toISOString()
  for (const [what, text, values, index] of [
    ['user by identity (verify, standing, get)', users.byIdentity, ['alice'], 'users_pkey'],
    ['key by id (verify)', keys.byId, ['0123456789abcdef'], 'api_keys_pkey'],
    ['the last-use flush', keys.touch, [['0123456789abcdef', 'fedcba9876543210'], [now, now]], 'api_keys_pkey'],
    ['setPassword', users.setPassword, ['alice', 'x', now], 'users_pkey'],
    ['revoke', keys.revoke, ['0123456789abcdef'], 'api_keys_pkey']
  ] as const) {
    const { rows } = await client.query(`explain (format json) ${text.text}`, [...values])
    const scans = nodes(rows[0]['QUERY PLAN'][0].Plan).filter((node) => /Scan/.test(node['Node Type']) && node['Node Type'] !== 'Function Scan')
    t.same(scans.map((node) => [node['Node Type'], node['Index Name']]), [['Index Scan', index]], `${what}: an index scan on ${index}`)
  }
})

interface PlanNode { 'Node Type': string, 'Index Name'?: string, Plans?: PlanNode[] }
function nodes (plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)]
}

t.test('importUsers: stored users with their hashes, idempotent, in batches', options, async (t) => {
  const { url, admin, closeLater } = await ownDatabase(t)
  const pool = closeLater(new pg.Pool({ connectionString: url, max: 2 }))
  const users = closeLater(await PostgresUserStore.connect({ pool, scrypt: FAST_SCRYPT }))
  const counted = countStatements(pool)
  const hash = await hashPassword('pw-imported', FAST_SCRYPT)
  const record = (identity: string, extra: Partial<StoredUser> = {}): StoredUser => ({
    identity, tags: ['ops'], enabled: true, createdAt: '2024-01-02T03:04:05.678Z', updatedAt: '2024-02-03T04:05:06.789Z', passwordHash: hash, ...extra
  })

  await users.add('existing', { password: 'pw-mine' })
  counted.reset()
  const many = Array.from({ length: 2500 }, (_, i) => record(`user-${i}`))
  t.same(await users.importUsers([record('existing'), ...many]), { added: 2500, existing: 1 })
  t.equal(counted.statements.filter((text) => text.includes('jsonb_to_recordset')).length, 3, '2501 records: 3 statements of at most 1000')
  t.match(await users.verify('user-7', 'pw-imported'), { identity: 'user-7', tags: ['ops'], createdAt: '2024-01-02T03:04:05.678Z', updatedAt: '2024-02-03T04:05:06.789Z' }, 'the hash came along')
  t.ok(await users.verify('existing', 'pw-mine'), 'an existing identity is left as it was')
  t.same(await users.importUsers(many.slice(0, 10)), { added: 0, existing: 10 }, 'running it again adds nothing')
  t.same(await users.importUsers([record('disabled', { enabled: false, tags: [] })]), { added: 1, existing: 0 })
  t.equal(await users.standing('disabled'), null)
  t.same(await users.importUsers([]), { added: 0, existing: 0 })

  const before = (await admin.query('select count(*)::int as n from gatehouse.users')).rows[0].n
  for (const [records, message] of [
    [[record('ok-1'), { ...record('bad'), passwordHash: 'plain' }], /^users\[1\] \(bad\): .*expected scrypt/],
    [[record('ok-1'), record('a:b')], /^users\[1\]: identity must be/],
    [[record('ok-1'), { ...record('x'), tags: ['a b'] }], /^users\[1\] \(x\): tag "a b" is not allowed/],
    [[record('ok-1'), { ...record('x'), createdAt: 'yesterday' }], /^users\[1\] \(x\): createdAt must be an ISO 8601 date/],
    [[record('ok-1'), { ...record('x'), createdAt: '2026-02-30T00:00:00Z' }], /^users\[1\] \(x\): createdAt must be an ISO 8601 date/],
    [[record('ok-1'), { ...record('x'), createdAt: '0000-01-01T00:00:00Z' }], /^users\[1\] \(x\): createdAt must be a date from year 1 to 9999 \(UTC\)$/],
    [[record('ok-1'), { ...record('x'), updatedAt: '9999-12-31T23:00:00-05:00' }], /^users\[1\] \(x\): updatedAt must be a date from year 1 to 9999 \(UTC\)$/],
    [[record('ok-1'), { ...record('x'), enabled: 'yes' }], /enabled must be true or false/],
    [[record('ok-1'), { ...record('x'), role: 'admin' }], /^users\[1\]: unknown field "role"/],
    [[record('ok-1'), record('ok-1')], /^users\[1\]: ok-1 appears twice/],
    [[null], /^users\[0\]: expected an object/],
    ['nope', /^users: expected a list/]
  ] as const) {
    await t.rejects(users.importUsers(records as never), { code: 'GATEHOUSE_AUTH_STORE_INPUT', statusCode: 400, message }, String(message))
  }
  t.equal((await admin.query('select count(*)::int as n from gatehouse.users')).rows[0].n, before, 'a bad record writes nothing')
})

t.test('importKeys: stored keys with their digests, idempotent', options, async (t) => {
  const { url, closeLater } = await ownDatabase(t)
  const source = closeLater(await PostgresApiKeyStore.connect({ url, schema: 'elsewhere', migrate: true }))
  const keys = closeLater(await PostgresApiKeyStore.connect({ url }))
  const issued = [await source.issue({ label: 'a', tags: 'x' }), await source.issue({ label: 'b', expiresAt: new Date(Date.now() + 3_600_000) })]
  const records: StoredApiKey[] = issued.map(({ key, record }) => ({ ...record, tags: [...record.tags], secretHash: secretHashOf(key) }))

  t.same(await keys.importKeys(records), { added: 2, existing: 0 })
  for (const { key, record } of issued) t.same(await keys.verify(key), record, 'the key verifies as it did where it came from')
  t.same(await keys.importKeys(records), { added: 0, existing: 2 }, 'again: nothing added')
  t.same((await keys.list()).map((r) => r.keyId).sort(), issued.map((i) => i.record.keyId).sort())

  const base = records[0]!
  for (const [record, message] of [
    [{ ...base, keyId: 'XYZ' }, /^keys\[0\]: keyId must be 16 lower-case hex digits/],
    [{ ...base, secretHash: issued[0]!.key }, /secretHash must be sha256\$/],
    [{ ...base, label: '' }, /label must be 1–200 characters/],
    [{ ...base, expiresAt: 'soon' }, /expiresAt must be an ISO 8601 date/],
    [{ ...base, lastUsedAt: '0000-12-31T23:59:59Z' }, /^keys\[0\] \([0-9a-f]{16}\): lastUsedAt must be a date from year 1 to 9999 \(UTC\)$/],
    [{ ...base, secret: 'x' }, /unknown field "secret"/]
  ] as const) {
    await t.rejects(keys.importKeys([record] as never), { code: 'GATEHOUSE_AUTH_STORE_INPUT', message }, String(message))
  }
})

t.test('a value PostgreSQL refuses (SQLSTATE class 22) is GATEHOUSE_AUTH_STORE_INPUT naming the row, never the database\'s message', options, async (t) => {
  const { url, admin, closeLater } = await ownDatabase(t)
  const users = closeLater(await PostgresUserStore.connect({ url, scrypt: FAST_SCRYPT }))
  const keys = closeLater(await PostgresApiKeyStore.connect({ url }))
  // Refusals the stores' checks cannot foresee, made by triggers of the
  // database's own whose messages quote a hash.
  await admin.query(`create function refuse() returns trigger language plpgsql as $$
    begin raise exception 'refused %', to_jsonb(new) using errcode = '22023'; end $$`)
  await admin.query('create trigger refuse before insert or update on gatehouse.users for each row when (new.identity like \'%refused\') execute function refuse()')
  await admin.query('create trigger refuse before insert on gatehouse.api_keys for each row when (new.label = \'refused\') execute function refuse()')
  const hash = await hashPassword('pw-imported', FAST_SCRYPT)
  const record = (identity: string): StoredUser => ({ identity, tags: [], enabled: true, createdAt: '2024-01-02T03:04:05.678Z', updatedAt: '2024-01-02T03:04:05.678Z', passwordHash: hash })
  const hidden = (err: Error): boolean => !/scrypt|sha256|refused \{/.test(err.message)

  const add = await users.add('refused', { password: 'pw-refused' }).catch((err: Error) => err)
  t.match(add, { code: 'GATEHOUSE_AUTH_STORE_INPUT', statusCode: 400, message: 'user refused: PostgreSQL refused a value (SQLSTATE 22023)' })
  t.ok(hidden(add as Error), 'no hash, no database message')
  const issue = await keys.issue({ label: 'refused' }).catch((err: Error) => err)
  t.match(issue, { code: 'GATEHOUSE_AUTH_STORE_INPUT', statusCode: 400, message: /^key [0-9a-f]{16}: PostgreSQL refused a value \(SQLSTATE 22023\)$/ })

  await users.add('ok', { password: 'pw-ok' })
  // 2500 records, the refused one in the third statement (rows go in name
  // order), named by its place in the list given.
  const many = Array.from({ length: 2500 }, (_, i) => record(`user-${String(i).padStart(4, '0')}${i === 2100 ? '-refused' : ''}`))
  const imported = await users.importUsers(many).catch((err: Error) => err)
  t.match(imported, { code: 'GATEHOUSE_AUTH_STORE_INPUT', statusCode: 400, message: 'users[2100] (user-2100-refused): PostgreSQL refused a value (SQLSTATE 22023)' })
  t.ok(hidden(imported as Error))
  t.same((await admin.query('select identity from gatehouse.users')).rows, [{ identity: 'ok' }], 'one transaction: the 2000 rows before it are gone too')
  t.same(await users.importUsers(many.filter((_, i) => i !== 2100)), { added: 2499, existing: 0 }, 'the rest goes in once the refused record is left out')
})

t.test('bad options are boot errors naming the option', async (t) => {
  const url = 'postgres://127.0.0.1:1/never'
  for (const [connect, name, message] of [
    [() => PostgresUserStore.connect({ url, cacheSize: -1 }), 'PostgresUserStore cacheSize', /whole number from 0/],
    [() => PostgresUserStore.connect({ url, negativeCacheSize: 1.5 }), 'PostgresUserStore negativeCacheSize', /whole number/],
    [() => PostgresUserStore.connect({ url, recheckInterval: '30s' as never }), 'PostgresUserStore recheckInterval', /whole number/],
    [() => PostgresUserStore.connect({ url, maxStale: 86_400_001 }), 'PostgresUserStore maxStale', /to 86400000/],
    [() => PostgresUserStore.connect({ url, scrypt: { N: 3, r: 8, p: 1 } }), 'PostgresUserStore scrypt', /N must be a power of two/],
    [() => PostgresUserStore.connect({ url, cachesize: 5 } as never), 'PostgresUserStore cachesize', /unknown option/],
    [() => PostgresApiKeyStore.connect({ url, lastUsedFlushInterval: 0 }), 'PostgresApiKeyStore lastUsedFlushInterval', /whole number from 1/],
    [() => PostgresApiKeyStore.connect({ url, cacheSize: 'many' as never }), 'PostgresApiKeyStore cacheSize', /whole number/],
    [() => PostgresApiKeyStore.connect({ url, scrypt: FAST_SCRYPT } as never), 'PostgresApiKeyStore scrypt', /unknown option/]
  ] as const) {
    const err = await connect().then(() => null, (e: Error) => e)
    t.match(err, { code: 'GATEHOUSE_POSTGRES_INVALID_OPTIONS', message: new RegExp(`^${name}: .*${message.source}`) }, name)
    t.type(err, TypeError, 'a boot error')
  }
})

t.test('issue gives up on a table that takes no insert, instead of drawing key ids forever', options, async (t) => {
  const { url, admin, closeLater } = await ownDatabase(t)
  const keys = closeLater(await PostgresApiKeyStore.connect({ url }))
  // A trigger that drops every new row (a rule would too, but a rule that
  // does nothing leaves a prepared statement nothing to re-plan when dropped).
  await admin.query('create function gatehouse.swallow() returns trigger language plpgsql as $$ begin return null; end $$')
  await admin.query('create trigger swallow before insert on gatehouse.api_keys for each row execute function gatehouse.swallow()')
  await t.rejects(keys.issue({ label: 'x' }), { code: 'GATEHOUSE_POSTGRES_INSERT_REFUSED', message: /"gatehouse"\."api_keys" took none of 3 new keys/ })
  await admin.query('drop trigger swallow on gatehouse.api_keys')
  t.ok(await keys.issue({ label: 'x' }))
})

t.test('names PostgreSQL could not store as given name nothing: no query, no alias, no 500', options, async (t) => {
  const { url, admin, closeLater } = await ownDatabase(t)
  const users = closeLater(await PostgresUserStore.connect({ url, scrypt: FAST_SCRYPT }))
  const keys = closeLater(await PostgresApiKeyStore.connect({ url }))
  await users.add('a\uFFFDb', { password: 'pw-replacement' })
  for (const identity of ['a\u0000b', 'a\uD800b']) {
    t.equal(await users.verify(identity, 'pw-replacement'), null, `verify ${JSON.stringify(identity)}: not the user whose name holds U+FFFD`)
    t.equal(await users.standing(identity), null)
    t.equal(await users.get(identity), null)
    t.equal(await users.setTags(identity, 'x'), false)
    t.equal(await users.setEnabled(identity, false), false)
    t.equal(await users.delete(identity), false)
  }
  await t.rejects(users.add('a\uD800b', { password: 'pw' }), { code: 'GATEHOUSE_AUTH_STORE_INPUT', message: /lone surrogate/ })
  await t.rejects(users.add('a\u0000b', { password: 'pw' }), { code: 'GATEHOUSE_AUTH_STORE_INPUT' })
  await t.rejects(users.importUsers([{ identity: 'x\uDC00', tags: [], enabled: true, createdAt: new Date().toISOString(), updatedAt: new Date().toISOString(), passwordHash: await hashPassword('pw', FAST_SCRYPT) }]),
    { code: 'GATEHOUSE_AUTH_STORE_INPUT', message: /^users\[0\]: identity must be well-formed/ })
  t.same((await users.list()).map((u) => u.identity), ['a\uFFFDb'], 'nothing else was written')

  for (const keyId of ['', 'ZZZZZZZZZZZZZZZZ', '0123456789abcde\u0000', 42]) {
    t.equal(await keys.revoke(keyId as string), false, `revoke ${JSON.stringify(keyId)}`)
    t.equal(await keys.delete(keyId as string), false)
  }
  await t.rejects(keys.issue({ label: 'bot\uD800' }), { code: 'GATEHOUSE_AUTH_STORE_INPUT', message: /lone surrogate/ })
  t.equal((await admin.query('select count(*)::int as n from gatehouse.api_keys')).rows[0].n, 0)
})
