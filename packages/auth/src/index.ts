import { defineComponent, ORDER } from '@fastify-gatehouse/core'
import { authHook } from './plugin.js'
import { authOptionsSchema, type AuthOptions } from './options.js'
import type { ApiKeyStore } from './api-key.js'
import type { LockoutStore } from './lockout/lockout-store.js'
import type { UserStore } from './user-store.js'

// The store roles whose interfaces auth declares, for the store drivers
// (core's StoreDriver; D-STORES-04).
declare module '@fastify-gatehouse/core' {
  interface StoreRoles {
    users: UserStore
    apiKeys: ApiKeyStore
    lockout: LockoutStore
  }
}

/**
 * The auth component (order 400, off by default): resolves the caller from
 * the `Authorization` header in an `onRequest` hook and sets
 * `request.scope.auth`; a present but invalid header is a 401 with a
 * challenge; a malformed bearer request (RFC 6750 §3.1) and several
 * `Authorization` headers are a 400. No header leaves
 * `scope.auth` null (the session component may fill it later).
 */
export const authPlugin = defineComponent<AuthOptions>({
  name: 'auth',
  order: ORDER.auth,
  schema: authOptionsSchema,
  plugin: authHook
})

export default authPlugin
export { AuthCore } from './auth-core.js'
export type { AuthCoreOptions } from './auth-core.js'
export type { AuthOptions, ResolvedAuthOptions } from './options.js'
export { authOptionsSchema, defaults as authDefaults, jwtVerifierSchema, resolveAuthOptions } from './options.js'
export type { BasicEntry, CacheOptions } from './basic.js'
export type { BasicOption, BasicValidate } from './basic-source.js'
export type { BearerEntry } from './bearer.js'
export type { BearerAuth, BearerOption } from './bearer-function.js'
export type { BearerCase } from './bearer-scheme.js'
export type { CallbackAnswer } from './callback-result.js'
export type { BasicLockoutOptions } from './password-guard.js'
export { lockoutCall } from './password-guard.js'
export { CALLBACK_TIMEOUT_LIMITS, CALLBACK_TIMEOUT_SECONDS, callOut, failedCall, safeFacts, storeCall } from './outside-call.js'
export type { FailureOptions, OtherFailure } from './outside-call.js'
export { JWT_ALGORITHMS, JWT_NAME_PATTERN } from './jwt.js'
export type { JwtAlgorithm, JwtVerifierOptions } from './jwt.js'
export type { JwtKey, JwtKeyResolver } from './jwt-key-resolver.js'
export type { JwtRevocationCheck } from './jwt-revocation.js'
export type { ClaimPattern, ClaimPatterns } from './jwt-matchers.js'
export { API_KEY, API_KEY_ID_PATTERN, generateApiKey, parseApiKey } from './api-key.js'
export type { ApiKeyRecord, ApiKeyStore, IssueApiKey } from './api-key.js'
// Was declared here; now core's (the same type), kept for importers.
export type { MaybePromise } from '@fastify-gatehouse/core'
export type { NewUser, UserRecord, UserStanding, UserStore, VerifiedUser } from './user-store.js'
export { MemoryApiKeyStore } from './stores/memory-api-key-store.js'
export { MemoryLockoutStore } from './lockout/memory-lockout-store.js'
export type { MemoryLockoutStoreOptions } from './lockout/memory-lockout-store.js'
export { addressKey, lockoutAddress } from './lockout/address-key.js'
export { identityKey } from './lockout/identity-key.js'
export { afterClaim, afterFailure, afterRefund, boundedPolicy, CLAIM_TTL_MS, LOCKOUT_LIMITS, lockSeconds, MAX_LOCK_SECONDS, secondsUntil } from './lockout/lockout-policy.js'
export type { ClaimOutcome, LockoutPolicy, LockoutState } from './lockout/lockout-policy.js'
export type { LockoutStore } from './lockout/lockout-store.js'
export { MemoryUserStore } from './stores/memory-user-store.js'
export { UserStoreBase } from './stores/user-store-base.js'
export type { UserStoreOptions } from './stores/user-store-base.js'
export type { ConfiguredUser } from './stores/configured-user.js'
export { checkIdentity, checkPassword, checkTags, newUser, publicUser, standingOf, userKind, verifyStored } from './stores/user-table.js'
export type { StoredUser } from './stores/user-table.js'
export { ApiKeyTable, apiKeyKind, newApiKey, publicRecord } from './stores/api-key-table.js'
export type { StoredApiKey } from './stores/api-key-table.js'
// For the stores that keep their records in these tables (the file stores of @fastify-gatehouse/files).
export type { RecordKind, StoreName, Table } from './stores/record-kind.js'
export { scryptParamsSchema } from './scrypt-schema.js'
export { DEFAULT_SCRYPT, hashPassword, parsePasswordHash, verifyAgainstDummy, verifyPassword } from './password.js'
export type { PasswordHash, ScryptParams } from './password.js'
export { isCommonPassword, passwordPolicyDefaults, passwordPolicySchema, passwordProblem, resolvePasswordPolicy } from './password-policy.js'
export type { PasswordPolicy, PasswordProblem, PasswordRule, ResolvedPasswordPolicy } from './password-policy.js'
export { parseAuthorization, MAX_AUTHORIZATION_LENGTH } from './authorization-header.js'
export { constantTimeEqual } from './digest.js'
// Was declared here; now core's (the same function), kept for importers.
export { sha256 } from '@fastify-gatehouse/core'
export {
  BAD_HEADER,
  BUSY,
  CALLBACK_TIMEOUT,
  DUPLICATE_AUTHORIZATION,
  GATEHOUSE_AUTH_BAD_HEADER,
  GATEHOUSE_AUTH_BUSY,
  GATEHOUSE_AUTH_CALLBACK_FAILED,
  GATEHOUSE_AUTH_CALLBACK_TIMEOUT,
  GATEHOUSE_AUTH_DUPLICATE_AUTHORIZATION,
  GATEHOUSE_AUTH_INVALID_CREDENTIALS,
  GATEHOUSE_AUTH_INVALID_REQUEST,
  GATEHOUSE_AUTH_INVALID_TOKEN,
  GATEHOUSE_AUTH_KEYS_UNAVAILABLE,
  GATEHOUSE_AUTH_LOCKED,
  GATEHOUSE_AUTH_LOCKOUT_UNAVAILABLE,
  GATEHOUSE_AUTH_REVOCATION_UNAVAILABLE,
  GATEHOUSE_AUTH_STORE_FULL,
  GATEHOUSE_AUTH_STORE_UNAVAILABLE,
  GATEHOUSE_AUTH_UNSUPPORTED_SCHEME,
  GATEHOUSE_AUTH_INVALID_CONFIG,
  GATEHOUSE_AUTH_INVALID_PASSWORD_HASH,
  GATEHOUSE_AUTH_STORE_FILE,
  GATEHOUSE_AUTH_STORE_INPUT,
  INVALID_CREDENTIALS,
  INVALID_REQUEST,
  INVALID_TOKEN,
  KEYS_UNAVAILABLE,
  LOCKED,
  LOCKOUT_UNAVAILABLE,
  REVOCATION_UNAVAILABLE,
  STORE_FULL,
  STORE_UNAVAILABLE,
  storeFull,
  UNSUPPORTED_SCHEME
} from './errors.js'
