// The public API of every Gatehouse package, in one import (DESIGN §1).
// Importing it has no side effect: `allComponents` lists every component,
// and this package's middlewareChain and loadRecipe resolve names against it
// (fastify-gatehouse/chain has them without the server: D-CORE-14).
// The Redis stores are at fastify-gatehouse/redis, so that ioredis loads
// only for who uses them (D-REDIS-07).

export {
  Avatar, HttpError, Redirect, safeNextPath, parseTags, compileAuthRule, setDefaultAuthRule, defineComponent,
  ORDER, formatChallenge, redactText, serverLimitDefaults, isFresh, ReauthenticateError, routeRules
} from '@fastify-gatehouse/core'
export type {
  AvatarInit, Recipe, ComponentSetting, GatehouseConfig, RequestScope, Component, ComponentDefinition, ComponentList,
  ChainEntry, LoadRecipeOptions, AuthRule, ServerLimits, RouteRuleEntry
} from '@fastify-gatehouse/core'
export { allComponents, middlewareChain, loadRecipe, recipeFromConfig } from './chain.js'
export type { ChainOptions } from './chain.js'
export { errorsPlugin } from '@fastify-gatehouse/errors'
export type { ErrorsOptions } from '@fastify-gatehouse/errors'
export { loggingPlugin, clientErrorHandler, RedactingLogController } from '@fastify-gatehouse/logging'
export type { LoggingOptions } from '@fastify-gatehouse/logging'
export { wellknownPlugin } from '@fastify-gatehouse/wellknown'
export type { WellKnownOptions, WellKnownDocument, WellKnownValue } from '@fastify-gatehouse/wellknown'
export { corsPlugin } from '@fastify-gatehouse/cors'
export type { CorsOptions, CorsRouteOptions, OriginFunction } from '@fastify-gatehouse/cors'
export { csrfPlugin } from '@fastify-gatehouse/csrf'
export type { CsrfOptions } from '@fastify-gatehouse/csrf'
export {
  authPlugin, AuthCore, MemoryApiKeyStore, MemoryUserStore, hashPassword, verifyPassword,
  passwordProblem, resolvePasswordPolicy, passwordPolicyDefaults, isCommonPassword
} from '@fastify-gatehouse/auth'
export type {
  ApiKeyStore, ApiKeyRecord, UserStore, UserRecord, AuthOptions, JwtVerifierOptions, PasswordPolicy, ResolvedPasswordPolicy, PasswordProblem, PasswordRule,
  BasicOption, BasicValidate, BearerAuth, BearerOption, BearerCase, CallbackAnswer, BasicLockoutOptions, JwtAlgorithm, JwtKey, JwtKeyResolver,
  JwtRevocationCheck, ClaimPattern, ClaimPatterns
} from '@fastify-gatehouse/auth'
export { FileApiKeyStore, FileUserStore } from '@fastify-gatehouse/files'
export { sessionPlugin, Session, MemorySessionStore, sessionHandle, lastSeenAt, userAgentLabel } from '@fastify-gatehouse/session'
export type { SessionOptions, SessionStore, SessionRecord, SessionEntry, SessionClient } from '@fastify-gatehouse/session'
export { cachePlugin } from '@fastify-gatehouse/cache'
export type { CacheOptions } from '@fastify-gatehouse/cache'
export { compressionPlugin } from '@fastify-gatehouse/compression'
export type { CompressionOptions } from '@fastify-gatehouse/compression'
export {
  AppServer, AuthMixin, resolveServerOptions, RoutedApplication, route, PasswordMethod, OidcMethod, serverApp, MemoryLockoutStore, SUPERADMIN
} from '@fastify-gatehouse/server'
export type { AppServerOptions, ResolvedServerOptions, AuthMethod, LoginMethodDescription, LockoutStore, LoginOptions, OidcProviderOptions } from '@fastify-gatehouse/server'
