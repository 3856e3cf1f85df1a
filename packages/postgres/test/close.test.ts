import { test } from 'tap'
import { PostgresApiKeyStore, PostgresLockoutStore, PostgresSessionStore, PostgresUserStore } from '../src/index.js'
import { needPostgres } from './helpers/postgres.js'
import { migratedDatabase, PATIENT } from './helpers/stores.js'

const postgres = await needPostgres()

// Two shutdown paths (a signal handler and Fastify's onClose, say) may close
// the same store at once, while a statement runs: both resolve, and the
// pool is ended once.
test('every store: close() twice at once resolves both, and a third later too', postgres, async (t) => {
  const db = await migratedDatabase(t)
  const opened = [
    await PostgresUserStore.connect({ url: db.url, ...PATIENT }),
    await PostgresApiKeyStore.connect({ url: db.url, ...PATIENT }),
    await PostgresSessionStore.connect({ url: db.url, ...PATIENT, sweepInterval: 0 }),
    await PostgresLockoutStore.connect({ url: db.url, ...PATIENT })
  ]
  for (const store of opened) {
    const name = store.constructor.name
    // A statement in flight keeps the pool from ending at once: the window
    // in which a second pool.end() would reject.
    const pool = (store as unknown as { pool: import('pg').Pool }).pool
    const client = await pool.connect()
    const inFlight = client.query('select pg_sleep(0.2)').finally(() => { client.release() })
    const results = await Promise.allSettled([store.close(), store.close()])
    await inFlight
    t.same(results.map((r) => r.status), ['fulfilled', 'fulfilled'], `${name}: both closes resolve`)
    await t.resolves(store.close(), `${name}: a later close resolves`)
  }
})
