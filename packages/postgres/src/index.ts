export { migrate, migrationStatusOf } from './migrate.js'
export type { MigrateOptions, MigrateResult, MigrationStatus } from './migrate.js'
export { migrationNames } from './schema-version.js'
export { PostgresStore } from './postgres-store.js'
export { PostgresSessionStore } from './postgres-session-store.js'
export type { PostgresSessionStoreOptions } from './postgres-session-store.js'
export { PostgresLockoutStore } from './postgres-lockout-store.js'
export type { PostgresLockoutStoreOptions } from './postgres-lockout-store.js'
export { sweepDefaults } from './expiry-sweep.js'
export type { SweepOptions } from './expiry-sweep.js'
export type { ConnectOptions } from './postgres-store.js'
export { checkPostgresUrl, defaults as postgresDefaults, describeUrl, resolvePostgresOptions } from './options.js'
export { checkSchema, checkTablePrefix } from './names.js'
export type { PostgresConnection, PostgresStoreOptions, ResolvedPostgresOptions } from './options.js'
export { isUnavailable } from './connection.js'
export {
  GATEHOUSE_POSTGRES_CONNECT, GATEHOUSE_POSTGRES_INVALID_OPTIONS, GATEHOUSE_POSTGRES_MIGRATION,
  GATEHOUSE_POSTGRES_SCHEMA_AHEAD, GATEHOUSE_POSTGRES_SCHEMA_BEHIND, POSTGRES_UNAVAILABLE
} from './errors.js'
