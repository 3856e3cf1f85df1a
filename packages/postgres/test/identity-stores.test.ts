import t from 'tap'
import pg from 'pg'
import { PostgresApiKeyStore, PostgresUserStore } from '../src/index.js'
import { apiKeyStoreConformance } from '../../../test-helpers/conformance/api-keys.js'
import { userStoreConformance } from '../../../test-helpers/conformance/users.js'
import { FAST_SCRYPT, ownDatabase } from './helpers/identity.js'
import { needPostgres } from './helpers/postgres.js'

const options = await needPostgres()

t.test('PostgresUserStore and PostgresApiKeyStore keep the store contracts', options, async (t) => {
  const { url, closeLater } = await ownDatabase(t)
  // Each make() gets a schema of its own: a fresh, empty store.
  let n = 0
  const fresh = (): { url: string, schema: string, migrate: true } => ({ url, schema: `conformance_${n++}`, migrate: true })

  await t.test('PostgresUserStore conformance', async (t) => {
    await userStoreConformance(t, async () => closeLater(await PostgresUserStore.connect({ ...fresh(), scrypt: FAST_SCRYPT })))
  })

  await t.test('PostgresApiKeyStore conformance', async (t) => {
    await apiKeyStoreConformance(t, async () => closeLater(await PostgresApiKeyStore.connect(fresh())))
  })

  await t.test('the same stores given a pool of yours', async (t) => {
    const pool = closeLater(new pg.Pool({ connectionString: url, max: 3 }))
    let m = 0
    await userStoreConformance(t, async () => closeLater(await PostgresUserStore.connect({ pool, schema: `conformance_pool_${m++}`, migrate: true, scrypt: FAST_SCRYPT })))
    await apiKeyStoreConformance(t, async () => closeLater(await PostgresApiKeyStore.connect({ pool, schema: `conformance_pool_${m++}`, migrate: true })))
  })
})
