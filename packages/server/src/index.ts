export { main as runCli } from './cli/main.js'
export type { CliIo } from './cli/io.js'
// The lockout store and policy live in @fastify-gatehouse/auth (so @fastify-gatehouse/redis
// can implement the interface without depending on the server); re-exported
// here so the server's public API is unchanged (D-LOCKOUT-02).
export { MemoryLockoutStore, afterFailure, lockSeconds, MAX_LOCK_SECONDS } from '@fastify-gatehouse/auth'
export type { LockoutPolicy, LockoutState, LockoutStore } from '@fastify-gatehouse/auth'
export { serverApp } from './server-app/server-app.js'
export type { ServerAppOptions } from './server-app/server-app.js'
export { PasswordMethod } from './server-app/password-method.js'
export type { PasswordMethodOptions } from './server-app/password-method.js'
export type { AuthMethod, LoginMethodContext, LoginMethodDescription, LoginPageFailure } from './server-app/auth-method.js'
export { NO_FIELDS } from './server-app/strict-bodies.js'
export { PasswordCheck } from './server-app/password-check.js'
export type { PasswordCheckResult } from './server-app/password-check.js'
export { accountDefaults, accountOptionsSchema, resolveAccountOptions } from './server-app/account/options.js'
export type { AccountOptions, ResolvedAccountOptions } from './server-app/account/options.js'
// allComponents moved to @fastify-gatehouse/components (D-CORE-14); still re-exported here.
export { allComponents } from '@fastify-gatehouse/components'
export { AppServer, AuthMixin } from './app-server/app-server.js'
export type { AppServerCreateOptions, AppServerPlugin } from './app-server/app-server.js'
export { checkAdminPassword } from './app-server/admin-password.js'
export type { ServerDatabaseOptions } from './app-server/database-stores.js'
export { appServerOptionsSchema } from './app-server/options-schema.js'
export type { AppServerOptions, ServerAppSettings, ServerAuthConfig } from './app-server/options.js'
export { resolveChannel } from '@fastify-gatehouse/core'
export { appServerDefaults, isResolvedServerOptions, resolveServerOptions } from './app-server/resolve-server-options.js'
export type { ResolvedServerOptions, ResolveNames, SeededTokens, StoreSource } from './app-server/resolve-server-options.js'
export { RoutedApplication, route } from './app-server/routed-application.js'
export type { RouteDecoratorOptions } from './app-server/routed-application.js'
export { SUPERADMIN } from './server-app/admin-api.js'
export { OidcMethod } from './server-app/oidc-method.js'
export {
  loginDefaults,
  loginOptionsSchema,
  normaliseExternalUrl,
  oidcProviderDefaults,
  oidcProviderSchema,
  resolveLoginOptions,
  resolveOidcProvider
} from './server-app/options.js'
export type {
  LoginOptions,
  OidcMethodContext,
  OidcProviderOptions,
  ResolvedLoginOptions,
  ResolvedOidcProvider
} from './server-app/options.js'
export {
  ACCOUNT_NOT_USER,
  BAD_LOGIN_REQUEST,
  BAD_PASSWORD_CHANGE,
  DUPLICATE_FIELD,
  FORM_NOT_ACCEPTED,
  GATEHOUSE_SERVER_ACCOUNT_NOT_USER,
  GATEHOUSE_SERVER_BAD_APP,
  GATEHOUSE_SERVER_BAD_LOGIN_REQUEST,
  GATEHOUSE_SERVER_BAD_PASSWORD_CHANGE,
  GATEHOUSE_SERVER_CLI_USAGE,
  GATEHOUSE_SERVER_DUPLICATE_FIELD,
  GATEHOUSE_SERVER_FORM_NOT_ACCEPTED,
  GATEHOUSE_SERVER_INVALID_LOGIN,
  GATEHOUSE_SERVER_INVALID_OPTIONS,
  GATEHOUSE_SERVER_INVALID_ROUTE,
  GATEHOUSE_SERVER_INVALID_TAG,
  GATEHOUSE_SERVER_LOCKED,
  GATEHOUSE_SERVER_LOOSE_BODY_SCHEMA,
  GATEHOUSE_SERVER_NO_SESSION_STORE,
  GATEHOUSE_SERVER_NO_STORE,
  GATEHOUSE_SERVER_NOT_FOUND,
  GATEHOUSE_SERVER_NOT_SIGNED_IN,
  GATEHOUSE_SERVER_OIDC_FAILED,
  GATEHOUSE_SERVER_OIDC_UNAVAILABLE,
  GATEHOUSE_SERVER_PASSWORD_CONFLICT,
  GATEHOUSE_SERVER_REGISTER_TOO_LATE,
  GATEHOUSE_SERVER_SAME_PASSWORD,
  GATEHOUSE_SERVER_SESSION_REQUIRED,
  GATEHOUSE_SERVER_UNKNOWN_FIELD,
  GATEHOUSE_SERVER_WEAK_PASSWORD,
  GATEHOUSE_SERVER_WRONG_PASSWORD,
  INVALID_LOGIN,
  INVALID_TAG,
  LOCKED,
  NOT_FOUND,
  NOT_SIGNED_IN,
  OIDC_FAILED,
  OIDC_UNAVAILABLE,
  PASSWORD_CONFLICT,
  SAME_PASSWORD,
  UNKNOWN_FIELD,
  WEAK_PASSWORD,
  WRONG_PASSWORD
} from './errors.js'
