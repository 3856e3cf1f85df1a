import { resolve } from 'node:path'
import { readStoredApiKeys, readStoredUsers } from '@fastify-gatehouse/files'
import { GATEHOUSE_SERVER_NO_STORE } from '../errors.js'
import { noArguments, parseCommand } from './arguments.js'
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
 * all or nothing and idempotent (`importStore` checks every record of both
 * files, then writes them in one transaction, leaving an identity or key
 * id that is already there alone); the counts go to stdout.
 */
export async function importCommand (args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommand(args, 1, {
    from: { type: 'string' },
    database: { type: 'string' },
    config: { type: 'string' },
    schema: { type: 'string' },
    'table-prefix': { type: 'string' },
    json: { type: 'boolean', default: false }
  })
  noArguments(positionals)
  if (values.from === undefined) throw new UsageError('--from <store dir> is required')
  if (values.database === undefined && values.config === undefined && (io.env[DATABASE_ENV] ?? '') === '') {
    throw new UsageError(`give the database: --database <url>, $${DATABASE_ENV} or --config <file>`)
  }
  // The folder is --from: $GATEHOUSE_STORE has no say here.
  const target = await storeTarget({ ...io, env: { ...io.env, GATEHOUSE_STORE: undefined } }, values, false, 'import')
  if (target.kind !== 'postgres') throw new UsageError(`give the database: --database <url>, $${DATABASE_ENV} or --config <file>`)
  const from = resolve(io.cwd, values.from)
  if (!await isStore(from)) throw new GATEHOUSE_SERVER_NO_STORE(from)
  // Both files read with the file stores' own parsing (either format), then
  // every record of both checked by importStore, before anything is written.
  const users = await readStoredUsers(usersFile(from))
  const keys = await readStoredApiKeys(keysFile(from))

  const postgres = await postgresPackage()
  // A minute a statement, not the stores' 5 s: the import is one
  // transaction, and an import of the same names running beside it holds
  // their rows until it commits (this one then adds nothing for them).
  // D-POSTGRES-20.
  const connection = { url: target.url, schema: target.schema, tablePrefix: target.tablePrefix, poolSize: 1, statementTimeout: 60_000 }
  const counts = await postgres.importStore(connection, { users, keys })
  io.stdout.write(values.json
    ? JSON.stringify(counts) + '\n'
    : `imported ${counts.users.added} users (${counts.users.existing} already present), ${counts.keys.added} keys (${counts.keys.existing} already present)\n`)
  return 0
}
