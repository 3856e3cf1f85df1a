// Bytes per record of the PostgreSQL stores (docs/scaling.md, "Sizing"):
// a fresh schema is migrated, filled through the stores' public APIs with
// --rows users, API keys, signed-in sessions and lockout counters shaped as
// Gatehouse writes them, vacuumed, and measured with pg_relation_size,
// pg_indexes_size and pg_total_relation_size. The schema is dropped after.
//   node --import tsx table-sizes.ts --database <url> [--rows 100000] [--keep]
// The URL may come from $GATEHOUSE_DATABASE_URL instead (a password in argv
// is visible in ps). The role needs CREATE on the database.
import { randomBytes } from 'node:crypto'
import { parseArgs } from 'node:util'
import pg from 'pg'
import { DEFAULT_SCRYPT, hashPassword, type StoredApiKey, type StoredUser } from '@fastify-gatehouse/auth'
import { sha256 } from '@fastify-gatehouse/core'
import { migrate, PostgresApiKeyStore, PostgresLockoutStore, PostgresSessionStore, PostgresUserStore } from '@fastify-gatehouse/postgres'
import { newSessionId, sessionKey } from '@fastify-gatehouse/session'
import { usage, wholeNumber } from './lib/cli.js'
import { identityOf, PASSWORD } from './lib/growth-seed.js'

const USAGE = 'table-sizes.ts --database <url> (or $GATEHOUSE_DATABASE_URL) [--rows 100000] [--keep]'
const { values } = parseArgs({
  options: {
    database: { type: 'string' },
    rows: { type: 'string', default: '100000' },
    keep: { type: 'boolean', default: false }
  }
})
const url = values.database ?? process.env.GATEHOUSE_DATABASE_URL
if (url === undefined || url === '') usage(USAGE, 'give the database: --database <url> or $GATEHOUSE_DATABASE_URL')
const rows = wholeNumber('rows', values.rows, 1000, 1_000_000, USAGE)
const schema = `gatehouse_sizes_${randomBytes(4).toString('hex')}`
const CONCURRENCY = 16
const BATCH = 10_000
const HOUR_MS = 3_600_000

// Rows go in in random order, with spread-out deadlines, as a live system
// fills its tables: an index built from sorted or equal keys would be
// packed tighter (or deduplicated) than the index of a deployment.
const order = Array.from({ length: rows }, (_, i) => i)
for (let i = rows - 1; i > 0; i--) {
  const j = Math.floor(Math.random() * (i + 1))
  ;[order[i], order[j]] = [order[j]!, order[i]!]
}
const withinTheHour = (): number => Math.floor(Math.random() * HOUR_MS)

/** Runs `work(i)` for i in [0, n), `CONCURRENCY` at a time. */
async function each (n: number, work: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < n) await work(next++)
  }))
}

// Users as the growth benchmark seeds them (identity user-012345, one tag),
// each with a password hash of the default parameters (one real hash, so
// every row holds a string of the real length).
async function seedUsers (): Promise<void> {
  const passwordHash = await hashPassword(PASSWORD, DEFAULT_SCRYPT)
  const at = new Date().toISOString()
  const store = await PostgresUserStore.connect({ url: url!, schema })
  try {
    for (let from = 0; from < rows; from += BATCH) {
      const batch: StoredUser[] = []
      for (let i = from; i < Math.min(rows, from + BATCH); i++) {
        batch.push({ identity: identityOf(order[i]!), tags: ['staff'], enabled: true, createdAt: at, updatedAt: at, passwordHash })
      }
      await store.importUsers(batch)
    }
  } finally {
    await store.close()
  }
}

// Keys as the growth benchmark seeds them (label "service 12345", one tag),
// with random ids and secrets as `issue` draws them, used at least once
// (last_used_at set), no expiry.
async function seedKeys (): Promise<void> {
  const at = new Date().toISOString()
  const store = await PostgresApiKeyStore.connect({ url: url!, schema })
  try {
    for (let from = 0; from < rows; from += BATCH) {
      const batch: StoredApiKey[] = []
      for (let i = from; i < Math.min(rows, from + BATCH); i++) {
        const secretHash = `sha256$${sha256(randomBytes(32).toString('base64url'))}`
        batch.push({ keyId: randomBytes(8).toString('hex'), label: `service ${i}`, tags: ['api'], enabled: true, expiresAt: null, createdAt: at, lastUsedAt: at, secretHash })
      }
      await store.importKeys(batch)
    }
  } finally {
    await store.close()
  }
}

// Signed-in sessions as a password login writes them (the record of
// packages/redis/test/memory-usage.test.ts: two tags, no app data, via and a
// credential stamp), one per user, keyed by the SHA-256 of a new session id.
async function seedSessions (): Promise<void> {
  const store = await PostgresSessionStore.connect({ url: url!, schema, poolSize: CONCURRENCY, sweepInterval: 0 })
  const now = Date.now()
  try {
    await each(rows, async (i) => {
      const expiresAt = now + HOUR_MS - withinTheHour()
      const record = { identity: `${identityOf(i)}@example.com`, tags: ['member', 'admin'], data: {}, createdAt: expiresAt - HOUR_MS, expiresAt, version: 1, via: 'password', stamp: 'Qm9vdHN0cmFwU3RhbXA' }
      if (await store.set(sessionKey(newSessionId()), record, null) !== 'written') throw new Error('a new session was not written')
    })
  } finally {
    await store.close()
  }
}

// Lockout counters as a failed login leaves them: half identity keys, half
// address keys, each claimed then failed once (one failure, no claim left).
async function seedLockout (): Promise<void> {
  const store = await PostgresLockoutStore.connect({ url: url!, schema, poolSize: CONCURRENCY, sweepInterval: 0 })
  const policy = { maxAttempts: 5, backoff: 30, resetAfter: 3600 }
  const now = Date.now()
  try {
    await each(rows, async (at) => {
      const i = order[at]!
      const key = i % 2 === 0 ? `identity:${identityOf(i)}` : `address:10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`
      const then = now - withinTheHour()
      await store.claim(key, policy, then)
      await store.recordFailure(key, policy, then)
    })
  } finally {
    await store.close()
  }
}

interface Size { table: string, rows: number, heap: number, toast: number, indexes: number, total: number }

async function sizes (client: pg.Client): Promise<Size[]> {
  const out: Size[] = []
  for (const table of ['users', 'api_keys', 'sessions', 'lockout']) {
    const name = `${pg.escapeIdentifier(schema)}.${pg.escapeIdentifier(table)}`
    const { rows: [row] } = await client.query<{ rows: string, heap: string, toast: string, indexes: string, total: string }>(`select
      (select count(*) from ${name}) as rows,
      pg_relation_size($1::regclass) as heap,
      coalesce(pg_total_relation_size(nullif(c.reltoastrelid, 0)), 0) as toast,
      pg_indexes_size($1::regclass) as indexes,
      pg_total_relation_size($1::regclass) as total
      from pg_class c where c.oid = $1::regclass`, [name])
    out.push({ table, rows: Number(row!.rows), heap: Number(row!.heap), toast: Number(row!.toast), indexes: Number(row!.indexes), total: Number(row!.total) })
  }
  return out
}

const client = new pg.Client({ connectionString: url })
await client.connect()
try {
  const { rows: [server] } = await client.query<{ version: string }>('select current_setting(\'server_version\') as version')
  await migrate({ url, schema })
  for (const [what, seed] of [['users', seedUsers], ['api_keys', seedKeys], ['sessions', seedSessions], ['lockout', seedLockout]] as const) {
    const started = Date.now()
    await seed()
    console.error(`${what}: ${rows} rows in ${((Date.now() - started) / 1000).toFixed(1)} s`)
  }
  for (const table of ['users', 'api_keys', 'sessions', 'lockout']) await client.query(`vacuum analyze ${pg.escapeIdentifier(schema)}.${pg.escapeIdentifier(table)}`)
  const measured = await sizes(client)
  console.log(`PostgreSQL ${server!.version}, ${rows} rows a table, after VACUUM ANALYZE; bytes (per row)`)
  console.log('| table | rows | heap | TOAST | indexes | total (pg_total_relation_size) |')
  console.log('| --- | ---: | ---: | ---: | ---: | ---: |')
  const per = (bytes: number, n: number): string => `${(bytes / 1_048_576).toFixed(1)} MiB (${Math.round(bytes / n)})`
  for (const s of measured) console.log(`| ${s.table} | ${s.rows} | ${per(s.heap, s.rows)} | ${per(s.toast, s.rows)} | ${per(s.indexes, s.rows)} | ${per(s.total, s.rows)} |`)
  const indexes = await client.query<{ index: string, bytes: string }>(`select indexrelname as index, pg_relation_size(indexrelid) as bytes
    from pg_stat_user_indexes where schemaname = $1 and relname <> all($2) order by indexrelname`, [schema, ['migrations', 'migration_lock']])
  console.log('\n| index | bytes (per row) |\n| --- | ---: |')
  for (const row of indexes.rows) console.log(`| ${row.index} | ${per(Number(row.bytes), rows)} |`)
} finally {
  if (values.keep) console.error(`kept schema ${schema}`)
  else await client.query(`drop schema ${pg.escapeIdentifier(schema)} cascade`).catch((err: Error) => { console.error(`could not drop schema ${schema}: ${err.message}`) })
  await client.end()
}
