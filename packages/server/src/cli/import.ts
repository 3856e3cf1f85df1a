import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { readStoredApiKeys, readStoredUsers } from '@fastify-gatehouse/auth'
import { GATEHOUSE_SERVER_NO_STORE } from '../errors.js'
import { DATABASE_ENV } from './database-flag.js'
import { postgresPackage } from './drivers.js'
import { UsageError, type CliIo } from './io.js'
import { isStore, keysFile, usersFile } from './store-paths.js'
import { storeTarget } from './store-target.js'

export const IMPORT_USAGE = `Usage:
  gatehouse import --from <store dir> [--database <url> [--schema s] [--table-prefix p] | --config <file>] [--json]
Copies the users (with their password hashes) and API keys (with their secret
hashes, tags, expiry, state and last use) of a folder store into PostgreSQL.
Records already there are left as they are: running it again adds nothing.
The database: --database, else $${DATABASE_ENV}, or --config's server_app.store.
The schema must be current (gatehouse migrate up). No secret is ever printed.
`

/**
 * `gatehouse import`: a folder store's users and keys into PostgreSQL,
 * idempotent (`importUsers`/`importKeys` leave an identity or key id that
 * is already there alone). Everything is read and checked before anything
 * is written; the counts go to stdout.
 */
export async function importCommand (args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      from: { type: 'string' },
      database: { type: 'string' },
      config: { type: 'string' },
      schema: { type: 'string' },
      'table-prefix': { type: 'string' },
      json: { type: 'boolean', default: false }
    }
  })
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`)
  if (values.from === undefined) throw new UsageError('--from <store dir> is required')
  if (values.database === undefined && values.config === undefined && (io.env[DATABASE_ENV] ?? '') === '') {
    throw new UsageError(`give the database: --database <url>, $${DATABASE_ENV} or --config <file>`)
  }
  // The folder is --from: $GATEHOUSE_STORE has no say here.
  const target = await storeTarget({ ...io, env: { ...io.env, GATEHOUSE_STORE: undefined } }, values, false, 'import')
  if (target.kind !== 'postgres') throw new UsageError(`give the database: --database <url>, $${DATABASE_ENV} or --config <file>`)
  const from = resolve(io.cwd, values.from)
  if (!await isStore(from)) throw new GATEHOUSE_SERVER_NO_STORE(from)
  // Read with the file stores' own parsing (either format); a bad record fails here, before any write.
  const users = await readStoredUsers(usersFile(from))
  const keys = await readStoredApiKeys(keysFile(from))

  const postgres = await postgresPackage()
  const connection = { url: target.url, schema: target.schema, tablePrefix: target.tablePrefix, poolSize: 2 }
  const userStore = await postgres.PostgresUserStore.connect(connection)
  try {
    const keyStore = await postgres.PostgresApiKeyStore.connect(connection)
    try {
      const userCounts = await userStore.importUsers(users)
      const keyCounts = await keyStore.importKeys(keys)
      io.stdout.write(values.json
        ? JSON.stringify({ users: userCounts, keys: keyCounts }) + '\n'
        : `imported ${userCounts.added} users (${userCounts.existing} already present), ${keyCounts.added} keys (${keyCounts.existing} already present)\n`)
    } finally {
      await keyStore.close()
    }
  } finally {
    await userStore.close()
  }
  return 0
}
