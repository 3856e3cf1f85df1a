import type { MigrationStatus } from '@fastify-gatehouse/postgres'
import { databaseAddress, databaseUrl, DATABASE_ENV } from './database-flag.js'
import { postgresPackage } from './drivers.js'
import { GATEHOUSE_SERVER_INVALID_OPTIONS } from '../errors.js'
import { readConfig } from './config-file.js'
import { UsageError, type CliIo } from './io.js'
import { nameArgument, noArguments, parseCommand } from './arguments.js'

export const MIGRATE_USAGE = `Usage:
  gatehouse migrate up       run the pending migrations of the PostgreSQL schema
  gatehouse migrate down     undo the latest migration
  gatehouse migrate status   applied, pending and unknown migrations; exit 0 when
                             current, 1 when behind (run up) or ahead (a newer
                             Gatehouse migrated the database)
Options: --database <postgres://user@host:port/db> (default: $${DATABASE_ENV}; the flag wins)
         --schema <name> (default: gatehouse)  --table-prefix <prefix> (default: none)  --json
         --config <gatehouse.yaml>: instead of --database, every PostgreSQL store the file names
A password in --database is visible to every user of the machine (ps): put the
URL in $${DATABASE_ENV}, or leave the password out of it and set $PGPASSWORD.
`

/** Where the schema stands, as `status` reports it. */
type State = 'current' | 'behind' | 'ahead'

function stateOf (status: MigrationStatus): State {
  // Ahead wins: `up` refuses a schema with unknown migrations, so pending ones cannot be run.
  if (status.unknown.length > 0) return 'ahead'
  return status.pending.length > 0 ? 'behind' : 'current'
}

const list = (names: readonly string[]): string => names.length === 0 ? '(none)' : names.join(', ')

function stateLine (state: State, status: MigrationStatus): string {
  switch (state) {
    case 'current': return 'current: the schema is this version\'s'
    case 'behind': return `behind: ${status.pending.length} pending; run \`gatehouse migrate up\``
    case 'ahead': return `ahead: the database holds ${status.unknown.length} migration(s) this version does not know (a newer Gatehouse ran them); upgrade Gatehouse, or migrate down with the newer version`
  }
}

/**
 * `gatehouse migrate up|down|status`: the PostgreSQL schema of the stores.
 * `status` exits 1 unless the schema is current, so a deploy script can
 * check before it starts servers. Output names host:port/database, never
 * the password.
 */
export async function migrateCommand (args: string[], io: CliIo): Promise<number> {
  const [action, ...rest] = args
  const { values, positionals } = parseCommand(rest, 2, {
    database: { type: 'string' },
    config: { type: 'string' },
    schema: { type: 'string' },
    'table-prefix': { type: 'string' },
    json: { type: 'boolean', default: false }
  })
  if (action !== 'up' && action !== 'down' && action !== 'status') {
    throw new UsageError(action === undefined ? 'which migrate command? (up, down or status)' : `unknown migrate command: ${nameArgument({ value: action, position: 2 })}`)
  }
  noArguments(positionals)
  let codes: number[] = []
  for (const target of await targets(io, values)) codes = [...codes, await migrateOne(io, action, target, values.json)]
  return Math.max(0, ...codes)
}

interface Target { url: string, schema: string, tablePrefix: string }

// The databases to work on: --database (or the variable) with --schema and
// --table-prefix, or every distinct PostgreSQL store of --config's file.
async function targets (io: CliIo, values: { database?: string | undefined, config?: string | undefined, schema?: string | undefined, 'table-prefix'?: string | undefined }): Promise<Target[]> {
  const postgres = await postgresPackage()
  if (values.config !== undefined) {
    if (values.database !== undefined) throw new UsageError('give one of --database and --config')
    if (values.schema !== undefined || values['table-prefix'] !== undefined) throw new UsageError('--schema and --table-prefix go with --database; with --config they come from the file')
    const { path, stores } = await readConfig(io, values.config)
    const found = new Map<string, Target>()
    for (const store of [stores.users, stores.sessions, stores.lockout]) {
      if (store?.kind !== 'postgres') continue
      const target = { url: store.url, schema: store.schema ?? postgres.postgresDefaults.schema, tablePrefix: store.tablePrefix ?? postgres.postgresDefaults.tablePrefix }
      found.set(JSON.stringify(target), target)
    }
    if (found.size === 0) throw new GATEHOUSE_SERVER_INVALID_OPTIONS(path, 'the file names no PostgreSQL store (server_app.store, middleware.session.store, server_app.login.store)')
    return [...found.values()]
  }
  const database = await databaseUrl(io, values.database)
  if (database === undefined) throw new UsageError(`give the database: --database <url> or $${DATABASE_ENV}`)
  return [{
    url: database.url,
    schema: postgres.checkSchema(values.schema ?? postgres.postgresDefaults.schema, '--schema'),
    tablePrefix: postgres.checkTablePrefix(values['table-prefix'] ?? postgres.postgresDefaults.tablePrefix, '--table-prefix')
  }]
}

async function migrateOne (io: CliIo, action: 'up' | 'down' | 'status', options: Target, asJson: boolean): Promise<number> {
  const postgres = await postgresPackage()
  const { url, schema, tablePrefix } = options
  const where = await databaseAddress(url, schema, tablePrefix)
  const json = (fields: Record<string, unknown>): void => {
    io.stdout.write(JSON.stringify({ database: postgres.describeUrl(url), schema, tablePrefix, ...fields }) + '\n')
  }

  if (action === 'status') {
    const status = await postgres.migrationStatusOf(options)
    const state = stateOf(status)
    if (asJson) {
      json({ ...status, state })
    } else {
      io.stdout.write(`database: ${where}\napplied:  ${list(status.applied)}\npending:  ${list(status.pending)}\nunknown:  ${list(status.unknown)}\n${stateLine(state, status)}\n`)
    }
    return state === 'current' ? 0 : 1
  }

  const { done, status } = await postgres.migrate(options, action)
  if (asJson) {
    json({ direction: action, done, ...status, state: stateOf(status) })
  } else if (done.length === 0) {
    io.stderr.write(action === 'up' ? `${where}: already current; nothing to run.\n` : `${where}: no migration applied; nothing to undo.\n`)
  } else {
    io.stderr.write(`${where}: ${action === 'up' ? 'ran' : 'undid'} ${done.join(', ')}; ${status.pending.length === 0 ? 'the schema is current' : `pending now: ${list(status.pending)}`}.\n`)
  }
  return 0
}
