// The public API of every Gatehouse package, in one import (DESIGN §1).
// Importing this module also registers every component.

export {
  Avatar, HttpError, Redirect, safeNextPath, parseTags, compileAuthRule, defineComponent, middlewareChain,
  loadRecipe, recipeFromConfig, ComponentRegistry, components, ORDER, formatChallenge, redactText, serverLimitDefaults
} from '@gatehouse/core'
export type { AvatarInit, Recipe, ComponentSetting, GatehouseConfig, RequestScope, Component, ComponentDefinition, AuthRule, ServerLimits } from '@gatehouse/core'
export { errorsPlugin } from '@gatehouse/errors'
export type { ErrorsOptions } from '@gatehouse/errors'
export { loggingPlugin, clientErrorHandler, RedactingLogController } from '@gatehouse/logging'
export type { LoggingOptions } from '@gatehouse/logging'
export { wellknownPlugin } from '@gatehouse/wellknown'
export type { WellKnownOptions, WellKnownDocument, WellKnownValue } from '@gatehouse/wellknown'
export { corsPlugin } from '@gatehouse/cors'
export type { CorsOptions } from '@gatehouse/cors'
export { csrfPlugin } from '@gatehouse/csrf'
export type { CsrfOptions } from '@gatehouse/csrf'
export {
  authPlugin, AuthCore, FileApiKeyStore, MemoryApiKeyStore, FileUserStore, MemoryUserStore, hashPassword, verifyPassword
} from '@gatehouse/auth'
export type { ApiKeyStore, ApiKeyRecord, UserStore, UserRecord, AuthOptions, JwtVerifierOptions } from '@gatehouse/auth'
export { sessionPlugin, Session, MemorySessionStore } from '@gatehouse/session'
export type { SessionOptions, SessionStore, SessionRecord } from '@gatehouse/session'
export { cachePlugin } from '@gatehouse/cache'
export type { CacheOptions } from '@gatehouse/cache'
export { compressionPlugin } from '@gatehouse/compression'
export type { CompressionOptions } from '@gatehouse/compression'
export { RedisSessionStore, RedisLockoutStore } from '@gatehouse/redis'
export type { RedisSessionStoreOptions, RedisLockoutStoreOptions, RedisConnection } from '@gatehouse/redis'
export {
  AppServer, ServerBase, AuthMixin, RoutedApplication, route, PasswordMethod, OidcMethod, serverApp, MemoryLockoutStore, SUPERADMIN
} from '@gatehouse/server'
export type { AppServerOptions, AuthMethod, LoginMethodDescription, LockoutStore, LoginOptions, OidcProviderOptions } from '@gatehouse/server'
