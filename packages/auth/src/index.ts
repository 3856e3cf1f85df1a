import type { FastifyPluginAsync } from 'fastify'
import { Avatar, defineComponent, HttpError, ORDER } from '@fastify-gatehouse/core'
import { AuthCore } from './auth-core.js'
import { repeatsAuthorization } from './duplicate-authorization.js'
import { DUPLICATE_AUTHORIZATION } from './errors.js'
import { authOptionsSchema, KNOWN_SECTIONS, type AuthOptions } from './options.js'

const auth: FastifyPluginAsync<AuthOptions> = async function auth (app, options) {
  for (const section of Object.keys(options)) {
    if (!KNOWN_SECTIONS.has(section)) app.log.warn(`auth: ignoring unknown section "${section}"`)
  }
  const core = await AuthCore.create({
    ...options,
    jwt: Object.entries(options.jwt ?? {}).map(([name, verifier]) => ({ ...verifier, name }))
  })

  app.addHook('onRequest', function authenticate (request, _reply, done) {
    const header = request.headers.authorization
    if (header === undefined) {
      done()
      return
    }
    if (repeatsAuthorization(request.raw.rawHeaders)) {
      done(new HttpError(400, 'Send one Authorization header, not several', { code: DUPLICATE_AUTHORIZATION }))
      return
    }
    let caller: Avatar | Promise<Avatar>
    try {
      caller = core.authenticate(header)
    } catch (err) {
      done(err as Error)
      return
    }
    if (caller instanceof Avatar) {
      request.scope.auth = caller
      done()
      return
    }
    caller.then((avatar) => {
      request.scope.auth = avatar
      done()
    }, done)
  })
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
  order: ORDER.authentication,
  schema: authOptionsSchema,
  plugin: auth
})

export default authPlugin
export { AuthCore } from './auth-core.js'
export type { AuthCoreOptions } from './auth-core.js'
export type { AuthOptions } from './options.js'
export { authOptionsSchema } from './options.js'
export type { BasicEntry, CacheOptions } from './basic.js'
export type { BearerEntry } from './bearer.js'
export { JWT_ALGORITHMS } from './jwt.js'
export type { JwtAlgorithm, JwtVerifierOptions } from './jwt.js'
export { API_KEY, generateApiKey, parseApiKey } from './api-key.js'
export type { ApiKeyRecord, ApiKeyStore, IssueApiKey, MaybePromise } from './api-key.js'
export type { NewUser, UserRecord, UserStanding, UserStore, VerifiedUser } from './user-store.js'
export { MemoryApiKeyStore } from './stores/memory-api-key-store.js'
export { FileApiKeyStore } from './stores/file-api-key-store.js'
export type { FileApiKeyStoreOptions } from './stores/file-api-key-store.js'
export { MemoryLockoutStore } from './lockout/memory-lockout-store.js'
export { afterClaim, afterFailure, afterRefund, CLAIM_TTL_MS, lockSeconds, MAX_LOCK_SECONDS, secondsUntil } from './lockout/lockout-policy.js'
export type { ClaimOutcome, LockoutPolicy, LockoutState } from './lockout/lockout-policy.js'
export type { LockoutStore } from './lockout/lockout-store.js'
export { MemoryUserStore } from './stores/memory-user-store.js'
export type { UserStoreOptions } from './stores/user-store-base.js'
export { FileUserStore } from './stores/file-user-store.js'
export { checkPassword } from './stores/user-table.js'
export type { FileUserStoreOptions } from './stores/file-user-store.js'
export { DEFAULT_SCRYPT, hashPassword, parsePasswordHash, verifyAgainstDummy, verifyPassword } from './password.js'
export type { PasswordHash, ScryptParams } from './password.js'
export { parseAuthorization, MAX_AUTHORIZATION_LENGTH } from './authorization-header.js'
export { BoundedCache } from './bounded-cache.js'
export { constantTimeEqual, sha256 } from './digest.js'
export {
  BAD_HEADER,
  DUPLICATE_AUTHORIZATION,
  GATEHOUSE_AUTH_INVALID_CONFIG,
  GATEHOUSE_AUTH_INVALID_PASSWORD_HASH,
  GATEHOUSE_AUTH_STORE_FILE,
  GATEHOUSE_AUTH_STORE_INPUT,
  INVALID_CREDENTIALS,
  INVALID_REQUEST,
  INVALID_TOKEN,
  KEYS_UNAVAILABLE,
  UNSUPPORTED_SCHEME
} from './errors.js'
