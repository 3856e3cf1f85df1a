// `gatehouse import --from <dir> --database <url>`: a folder store's users
// and keys into PostgreSQL, with their hashes, idempotent. Each test on a
// database of its own.
import { test, type Test } from 'tap'
import { cpSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { FileApiKeyStore, FileUserStore } from '@fastify-gatehouse/files'
import { migrate } from '@fastify-gatehouse/postgres'
import { AppServer } from '@fastify-gatehouse/server'
import { needPostgres, testDatabase } from '../../postgres/test/helpers/postgres.js'
import { gatehouse, type RunOptions } from './helpers/cli.js'

const postgres = await needPostgres()
// Made by the version 1 FileUserStore and FileApiKeyStore (before the journal format); the new stores still open it.
const V1_STORE = fileURLToPath(new URL('./fixtures/v1-store', import.meta.url))
const V1_KEY = 'gak_2e894120c2435323_4VBo0QjPN5HB_GVcBG_qj9DwCoYVX9spdWIddp6OoUo'
const FAST = { N: 1024, r: 8, p: 1 }

async function database (t: Test): Promise<{ url: string, query: <R extends pg.QueryResultRow>(text: string, values?: unknown[]) => Promise<R[]> }> {
  const db = await testDatabase()
  await migrate({ url: db.url })
  const pool = new pg.Pool({ connectionString: db.url, max: 2 })
  pool.on('error', () => {})
  t.teardown(async () => { await pool.end(); await db.drop() })
  return { url: db.url, query: async (text, values) => (await pool.query(text, values)).rows }
}

const cli = async (args: string[], options: RunOptions = {}) => await gatehouse(args, { cleanEnv: true, env: {}, ...options })

test('a version 1 store: every user and key with its hash, tags, state, expiry and last use; a second run adds nothing; the server accepts them', postgres, async (t) => {
  const db = await database(t)
  const from = join(t.testdir({}), 'store')
  cpSync(V1_STORE, from, { recursive: true })
  const file = { users: (await import(join(from, 'users.json'), { with: { type: 'json' } })).default, keys: (await import(join(from, 'keys.json'), { with: { type: 'json' } })).default }

  const first = await cli(['import', '--from', from, '--database', db.url])
  t.equal(first.code, 0, first.stderr)
  t.equal(first.stdout, 'imported 2 users (0 already present), 2 keys (0 already present)\n')
  const second = await cli(['import', '--from', from, '--database', db.url])
  t.equal(second.stdout, 'imported 0 users (2 already present), 0 keys (2 already present)\n', 'idempotent')
  for (const run of [first, second]) {
    t.notOk(run.stdout.includes(V1_KEY.slice(21)) || run.stderr.includes(V1_KEY.slice(21)), 'never a secret')
    t.notMatch(run.stdout + run.stderr, /scrypt\$|sha256\$/, 'never a hash')
  }

  const users = await db.query<{ identity: string, tags: string[], enabled: boolean, password_hash: string, created_at: Date }>('select * from gatehouse.users order by identity')
  t.same(users.map((u) => [u.identity, u.tags, u.enabled, u.password_hash, u.created_at.toISOString()]),
    file.users.users.map((u: Record<string, unknown>) => [u.identity, u.tags, u.enabled, u.passwordHash, u.createdAt]))
  const keys = await db.query<{ key_id: string, label: string, tags: string[], enabled: boolean, secret_hash: string, expires_at: Date | null, last_used_at: Date | null }>('select * from gatehouse.api_keys order by label')
  t.same(keys.map((k) => [k.key_id, k.label, k.tags, k.enabled, k.secret_hash, k.expires_at?.toISOString() ?? null, k.last_used_at?.toISOString() ?? null]),
    file.keys.keys.map((k: Record<string, unknown>) => [k.keyId, k.label, k.tags, k.enabled, k.secretHash, k.expiresAt, k.lastUsedAt]))

  const server = new AppServer({ logger: false, database: db.url })
  server.register(async (app) => { app.get('/whoami', { config: { authRule: 'member' } }, async (request) => request.scope.auth) })
  t.teardown(() => server.close())
  const login = async (identity: string, password: string) => (await server.inject({ method: 'POST', url: '/_server/login', payload: { identity, password } })).statusCode
  t.equal(await login('alice', 'alice-password'), 200, 'the imported hash verifies')
  t.equal(await login('bob', 'bob-password'), 401, 'a disabled user stays disabled')
  const call = await server.inject({ url: '/whoami', headers: { authorization: `Bearer ${V1_KEY}` } })
  t.equal(call.statusCode, 200, 'the imported key works')
  t.match(call.json(), { identity: 'ci', tags: ['member', 'deploy'], backend: 'api_key' })
})

test('a store made by the current file stores; parallel imports add each record once', postgres, async (t) => {
  const db = await database(t)
  const from = t.testdir({})
  const users = await FileUserStore.open(join(from, 'users.json'), { scrypt: FAST })
  const keys = await FileApiKeyStore.open(join(from, 'keys.json'))
  t.teardown(() => keys.close())
  for (let i = 0; i < 20; i++) await users.add(`user${i}`, { password: `password-${i}`, tags: i % 2 === 0 ? ['even'] : [] })
  const issued = []
  for (let i = 0; i < 15; i++) issued.push(await keys.issue({ label: `key${i}`, tags: ['k'], expiresAt: null }))
  await keys.revoke(issued[3]!.record.keyId)

  const runs = await Promise.all(Array.from({ length: 4 }, () => cli(['import', '--from', from, '--json'], { env: { GATEHOUSE_DATABASE_URL: db.url } })))
  t.same(runs.map((r) => r.code), [0, 0, 0, 0], runs.map((r) => r.stderr).join(''))
  const counts = runs.map((r) => JSON.parse(r.stdout) as { users: { added: number, existing: number }, keys: { added: number, existing: number } })
  t.equal(counts.reduce((n, c) => n + c.users.added, 0), 20, 'each user added once')
  t.equal(counts.reduce((n, c) => n + c.keys.added, 0), 15, 'each key added once')
  t.same(counts.map((c) => c.users.added + c.users.existing), [20, 20, 20, 20])
  t.equal((await db.query('select 1 from gatehouse.users')).length, 20)
  t.same(await db.query('select enabled from gatehouse.api_keys where key_id = $1', [issued[3]!.record.keyId]), [{ enabled: false }])
})

test('import refuses: no --from, no database, a folder with no store, a folder target, a corrupt file (nothing written), a schema behind', postgres, async (t) => {
  const db = await database(t)
  const dir = t.testdir({
    empty: {},
    corrupt: { 'users.json': '{ not json', 'keys.json': '' },
    'folder.yaml': 'server_app:\n  store: ./data\n'
  })
  const missingFrom = await cli(['import', '--database', db.url])
  t.equal(missingFrom.code, 2)
  t.match(missingFrom.stderr, /--from <store dir> is required/)
  const noDatabase = await cli(['import', '--from', V1_STORE], { env: { GATEHOUSE_STORE: V1_STORE } })
  t.equal(noDatabase.code, 2)
  t.match(noDatabase.stderr, /give the database: --database <url>, \$GATEHOUSE_DATABASE_URL or --config <file>/)
  const noStore = await cli(['import', '--from', join(dir, 'empty'), '--database', db.url])
  t.equal(noStore.code, 1)
  t.match(noStore.stderr, /^gatehouse: no store at .*empty/)
  const folder = await cli(['import', '--from', V1_STORE, '--config', 'folder.yaml'], { cwd: dir })
  t.equal(folder.code, 1)
  t.match(folder.stderr, /server_app\.store: is a folder: import works on PostgreSQL/)
  const corrupt = await cli(['import', '--from', join(dir, 'corrupt'), '--database', db.url])
  t.equal(corrupt.code, 1)
  t.match(corrupt.stderr, /^gatehouse: [^\n]*users\.json[^\n]*\n$/, 'one line naming the file')
  t.same(await db.query('select 1 from gatehouse.users union all select 1 from gatehouse.api_keys'), [], 'nothing written')

  const unmigrated = await testDatabase()
  t.teardown(unmigrated.drop)
  const behind = await cli(['import', '--from', V1_STORE, '--database', unmigrated.url])
  t.equal(behind.code, 1)
  t.match(behind.stderr, /^gatehouse: the Gatehouse schema in .* is behind this version .*gatehouse migrate up/)
})

test('an identity already in the database is left as it was (its password too)', postgres, async (t) => {
  const db = await database(t)
  const from = t.testdir({})
  const users = await FileUserStore.open(join(from, 'users.json'), { scrypt: FAST })
  await users.add('dave', { password: 'dave-password-1', tags: [] })
  t.equal((await cli(['users', 'add', 'dave', '--database', db.url], { stdin: 'database-copy-pw\n' })).code, 0, 'dave already in the database, with another password')
  const run = await cli(['import', '--from', from, '--database', db.url])
  t.equal(run.stdout, 'imported 0 users (1 already present), 0 keys (0 already present)\n')
  const server = new AppServer({ logger: false, database: db.url })
  t.teardown(() => server.close())
  const status = async (password: string) => (await server.inject({ method: 'POST', url: '/_server/login', payload: { identity: 'dave', password } })).statusCode
  t.equal(await status('database-copy-pw'), 200, 'the database\'s record is left as it was')
  t.equal(await status('dave-password-1'), 401)
})

// A version 1 document of each file, as the file stores still read them.
function v1Store (dir: string, users: ReadonlyArray<Record<string, unknown>>, keys: ReadonlyArray<Record<string, unknown>>): string {
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'users.json'), JSON.stringify({ version: 1, users }))
  writeFileSync(join(dir, 'keys.json'), JSON.stringify({ version: 1, keys }))
  return dir
}
const HASH = 'scrypt$1024,8,1$oMI4a1qZ1MFZL13gJQ8DFw$p8LhlKUX7zDvw3UD1taufG7XG4nSQ1JbusB3X1GfyY0'
const AT = '2026-11-24T01:34:51.238Z'
const userRecord = (identity: string, fields: Record<string, unknown> = {}) => ({ identity, tags: [], enabled: true, createdAt: AT, updatedAt: AT, passwordHash: HASH, ...fields })
const keyRecord = (i: number, fields: Record<string, unknown> = {}) => ({
  keyId: i.toString(16).padStart(16, '0'), label: `key${i}`, tags: [], enabled: true, expiresAt: null, createdAt: AT, lastUsedAt: null, secretHash: `sha256$${'A'.repeat(42)}${i % 10}`, ...fields
})
const nothingWritten = async (t: Test, db: Awaited<ReturnType<typeof database>>, message: string) => {
  t.same(await db.query('select 1 from gatehouse.users union all select 1 from gatehouse.api_keys'), [], message)
}

test('a bad record in the keys file: refused by name before anything is written (the users neither)', postgres, async (t) => {
  const db = await database(t)
  const dir = t.testdir({})
  for (const [field, value] of [['createdAt', '0000-06-01T00:00:00.000Z'], ['lastUsedAt', '0000-01-01T00:00:00Z'], ['expiresAt', '9999-12-31T23:00:00-05:00']] as const) {
    const from = v1Store(join(dir, field), [userRecord('alice'), userRecord('bob')], [keyRecord(1), keyRecord(2, { [field]: value })])
    const run = await cli(['import', '--from', from, '--database', db.url])
    t.equal(run.code, 1, `${field} ${value}`)
    t.match(run.stderr, new RegExp(`^gatehouse: keys\\[1\\] \\(0000000000000002\\): ${field} must be a date from year 1 to 9999 \\(UTC\\)\\n$`))
    t.equal(run.stdout, '')
    await nothingWritten(t, db, 'no user was written before the keys were checked')
  }
})

test('a date PostgreSQL cannot hold (year 0000, or past 9999 in UTC) is named, never a raw database error', postgres, async (t) => {
  const db = await database(t)
  const dir = t.testdir({})
  for (const [field, value] of [['createdAt', '0000-01-01T00:00:00Z'], ['updatedAt', '0001-01-01T00:30:00+01:00'], ['updatedAt', '9999-12-31T23:59:59-00:01']] as const) {
    const from = v1Store(join(dir, `${field}-${value.slice(0, 4)}${value.slice(-6)}`.replace(/[:+]/g, '')), [userRecord('alice'), userRecord('bob', { [field]: value })], [keyRecord(1)])
    const run = await cli(['import', '--from', from, '--database', db.url])
    t.equal(run.code, 1, `${field} ${value}`)
    t.match(run.stderr, new RegExp(`^gatehouse: users\\[1\\] \\(bob\\): ${field} must be a date from year 1 to 9999 \\(UTC\\)\\n$`))
    t.notMatch(run.stderr, /scrypt\$|out of range|22008/, 'no hash, no database message')
    await nothingWritten(t, db, 'nothing written')
  }
  const edges = v1Store(join(dir, 'edges'), [userRecord('first', { createdAt: '0001-01-01T00:00:00.000Z' }), userRecord('last', { updatedAt: '9999-12-31T23:59:59.999Z' })], [])
  const run = await cli(['import', '--from', edges, '--database', db.url])
  t.equal(run.code, 0, run.stderr)
  t.same((await db.query<{ at: string }>('select to_char(created_at at time zone \'UTC\', \'YYYY\') || \'/\' || to_char(updated_at at time zone \'UTC\', \'YYYY\') as at from gatehouse.users order by identity')).map((r) => r.at),
    ['0001/2026', '2026/9999'], 'years 1 and 9999 are stored')
})

test('a value the database refuses (SQLSTATE class 22) is named by record; the import is one transaction, so nothing stays', postgres, async (t) => {
  const db = await database(t)
  // A refusal the checks cannot foresee: a trigger of the database's own,
  // whose message quotes the secret's digest (which must not be shown).
  await db.query(`create function refuse_key() returns trigger language plpgsql as $$
    begin raise exception 'refused %', new.secret_hash using errcode = '22023'; end $$`)
  await db.query('create trigger refuse_key before insert on gatehouse.api_keys for each row when (new.label = \'refused\') execute function refuse_key()')
  const keys = Array.from({ length: 1500 }, (_, i) => keyRecord(i + 1, i === 1200 ? { label: 'refused' } : {}))
  const from = v1Store(t.testdir({}), [userRecord('alice')], keys)
  const run = await cli(['import', '--from', from, '--database', db.url])
  t.equal(run.code, 1)
  t.match(run.stderr, /^gatehouse: keys\[1200\] \(00000000000004b1\): PostgreSQL refused a value \(SQLSTATE 22023\)\n$/)
  t.notMatch(run.stderr, /sha256\$|refused sha/, 'the database\'s message (with the digest) is not shown')
  await nothingWritten(t, db, 'the users and the first 1200 keys are rolled back with it')
  await db.query('drop trigger refuse_key on gatehouse.api_keys')
  const again = await cli(['import', '--from', from, '--database', db.url])
  t.equal(again.stdout, 'imported 1 users (0 already present), 1500 keys (0 already present)\n', 'once the database takes it, everything goes in')
})
