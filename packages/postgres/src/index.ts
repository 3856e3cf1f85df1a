export { migrate, migrationStatusOf } from './migrate.js'
export type { MigrateOptions, MigrateResult, MigrationStatus } from './migrate.js'
export { migrationNames } from './schema-version.js'
export { PostgresStore } from './postgres-store.js'
export { PostgresUserStore } from './postgres-user-store.js'
export type { PostgresUserStoreOptions } from './postgres-user-store.js'
export { PostgresApiKeyStore } from './postgres-api-key-store.js'
export type { PostgresApiKeyStoreOptions } from './postgres-api-key-store.js'
export { cacheDefaults as postgresCacheDefaults } from './cache-options.js'
export type { PostgresCacheOptions } from './cache-options.js'
export type { ImportCounts } from './import-records.js'
export type { ConnectOptions } from './postgres-store.js'
export { checkPostgresUrl, defaults as postgresDefaults, describeUrl, resolvePostgresOptions } from './options.js'
export type { PostgresConnection, PostgresStoreOptions, ResolvedPostgresOptions } from './options.js'
export { isUnavailable } from './connection.js'
export {
  GATEHOUSE_POSTGRES_CONNECT, GATEHOUSE_POSTGRES_INVALID_OPTIONS, GATEHOUSE_POSTGRES_MIGRATION,
  GATEHOUSE_POSTGRES_SCHEMA_AHEAD, GATEHOUSE_POSTGRES_SCHEMA_BEHIND, POSTGRES_UNAVAILABLE
} from './errors.js'
