import { Avatar, formatChallenge, HttpError } from '@fastify-gatehouse/core'
import { parseApiKey, type ApiKeyRecord, type ApiKeyStore } from './api-key.js'
import { MAX_AUTHORIZATION_LENGTH, parseAuthorization } from './authorization-header.js'
import { BasicBackend, type BasicEntry, type CacheOptions, type Outcome } from './basic.js'
import { StaticTokens, TOKEN68, type BearerEntry } from './bearer.js'
import { BoundedCache } from './bounded-cache.js'
import { BAD_HEADER, GATEHOUSE_AUTH_INVALID_CONFIG, INVALID_CREDENTIALS, INVALID_REQUEST, INVALID_TOKEN, KEYS_UNAVAILABLE, UNSUPPORTED_SCHEME, unauthorized } from './errors.js'
import { decodeJws, type DecodedJws } from './jws.js'
import { JwtVerifier, type JwtFailure, type JwtVerifierOptions, type VerifiedJwt } from './jwt.js'

// The scheme of a header the parser refused is Bearer (`Bearer`, `bearer `,
// `Bearer\t…`): its malformation is then RFC 6750's to name.
const BEARER_SCHEME = /^[ \t]*bearer(?:$|[^!#$%&'*+.^_`|~0-9A-Za-z-])/i

function namesBearer (header: string): boolean {
  return BEARER_SCHEME.test(header)
}

/** AuthCore's options: the server form (JWT verifiers as a list). */
export interface AuthCoreOptions {
  basic?: Readonly<Record<string, BasicEntry>>
  bearer?: Readonly<Record<string, BearerEntry>>
  jwt?: readonly JwtVerifierOptions[]
  apiKeys?: ApiKeyStore
  /** Realm of the challenges. Default: `gatehouse`. */
  realm?: string
  /** Verified `passwordHash` credentials kept. Default: 1000 for 300 s. */
  basicCache?: Partial<CacheOptions>
  /** Verified JWTs kept (never past their `exp` or `iat + maxAge`). Default: 10000 for 300 s. */
  jwtCache?: Partial<CacheOptions>
  /** Clock, for tests. Default: `Date.now`. */
  now?: () => number
}

/**
 * Resolves the caller from an `Authorization` header value — no Fastify
 * here. Answers an {@link Avatar}, synchronously when no I/O or hashing is
 * needed, or throws/rejects with a coded 401 carrying an RFC 7235 challenge.
 */
export class AuthCore {
  readonly #basic: BasicBackend | undefined
  readonly #tokens: StaticTokens | undefined
  readonly #verifiers: readonly JwtVerifier[]
  readonly #apiKeys: ApiKeyStore | undefined
  readonly #jwtCache: BoundedCache<Avatar>
  readonly #jwtTtlMs: number
  readonly #keyAvatars = new WeakMap<ApiKeyRecord, Avatar>()
  readonly #now: () => number
  readonly #basicChallenge: string
  readonly #realm: string
  readonly #challenges: readonly string[]

  private constructor (options: AuthCoreOptions, verifiers: readonly JwtVerifier[]) {
    const realm = options.realm ?? 'gatehouse'
    this.#realm = realm
    const basicEntries = options.basic ?? {}
    const bearerEntries = options.bearer ?? {}
    this.#basic = Object.keys(basicEntries).length > 0
      ? new BasicBackend(basicEntries, { max: 1000, ttl: 300, ...options.basicCache })
      : undefined
    this.#tokens = Object.keys(bearerEntries).length > 0 ? new StaticTokens(bearerEntries) : undefined
    this.#verifiers = verifiers
    this.#apiKeys = options.apiKeys
    const jwtCache = { max: 10_000, ttl: 300, ...options.jwtCache }
    this.#jwtCache = new BoundedCache(jwtCache.max)
    this.#jwtTtlMs = jwtCache.ttl * 1000
    this.#now = options.now ?? Date.now
    this.#basicChallenge = formatChallenge('Basic', { realm, charset: 'UTF-8' })
    const challenges: string[] = []
    if (this.#basic !== undefined) challenges.push(this.#basicChallenge)
    if (this.#acceptsBearer || challenges.length === 0) challenges.push(formatChallenge('Bearer', { realm }))
    this.#challenges = challenges
  }

  /** Builds the backends and imports the JWT keys; throws `GATEHOUSE_AUTH_INVALID_CONFIG` naming a bad entry. */
  static async create (options: AuthCoreOptions = {}): Promise<AuthCore> {
    if (options.apiKeys !== undefined && typeof (options.apiKeys as Partial<ApiKeyStore>).verify !== 'function') {
      throw new GATEHOUSE_AUTH_INVALID_CONFIG('apiKeys', 'must be an ApiKeyStore (with a verify method)')
    }
    const verifiers = await Promise.all((options.jwt ?? []).map((v, i) => JwtVerifier.create(v, v.name ?? String(i))))
    return new AuthCore(options, verifiers)
  }

  get #acceptsBearer (): boolean {
    return this.#tokens !== undefined || this.#verifiers.length > 0 || this.#apiKeys !== undefined
  }

  #bearerChallenge (error?: string, description?: string): string {
    return formatChallenge('Bearer', { realm: this.#realm, error, error_description: description })
  }

  #invalidToken (detail: string): HttpError {
    return unauthorized(INVALID_TOKEN, detail, this.#bearerChallenge('invalid_token', detail))
  }

  // RFC 6750 §3.1: a malformed request is `invalid_request`, which SHOULD be
  // a 400: the client is broken, asking it to authenticate again would not help.
  #invalidRequest (reason: string): HttpError {
    const detail = `Malformed bearer request: ${reason}`
    return new HttpError(400, detail, { code: INVALID_REQUEST, headers: { 'www-authenticate': this.#bearerChallenge('invalid_request', detail) } })
  }

  /**
   * The caller for an `Authorization` header value. Never returns null: a
   * header that is present must be valid.
   */
  authenticate (header: string): Avatar | Promise<Avatar> {
    // Fast path for the usual spelling: taken only when the exact remainder
    // already passes the strict check (token68, or a known Basic digest);
    // everything else goes through the general parser.
    if (header.length <= MAX_AUTHORIZATION_LENGTH) {
      if (header.startsWith('Bearer ') && this.#acceptsBearer) {
        const token = header.slice(7)
        if (!token.startsWith('gak_')) {
          // A configured token or a cached JWT was checked when it was stored.
          const known = this.#tokens?.find(token) ?? this.#jwtCache.get(token, this.#now())
          if (known !== undefined) return known
        }
        if (TOKEN68.test(token)) return this.#bearerToken(token)
      } else if (header.startsWith('Basic ') && this.#basic !== undefined) {
        const known = this.#basic.known(header.slice(6), this.#now())
        if (known !== undefined) return known
      }
    }
    const parsed = parseAuthorization(header)
    if (typeof parsed === 'string') {
      if (this.#acceptsBearer && namesBearer(header)) throw this.#invalidRequest(parsed)
      throw unauthorized(BAD_HEADER, `Malformed Authorization header: ${parsed}`, this.#challenges)
    }
    if (parsed.scheme === 'basic' && this.#basic !== undefined) return this.#basicCaller(parsed.credentials)
    if (parsed.scheme === 'bearer' && this.#acceptsBearer) return this.#bearerCaller(parsed.credentials)
    throw unauthorized(UNSUPPORTED_SCHEME, `The ${parsed.scheme} scheme is not accepted`, this.#challenges)
  }

  #basicOutcome (outcome: Outcome): Avatar {
    if (outcome instanceof Avatar) return outcome
    throw unauthorized(outcome.refused === 'malformed' ? BAD_HEADER : INVALID_CREDENTIALS, outcome.detail, this.#basicChallenge)
  }

  #basicCaller (credentials: string): Avatar | Promise<Avatar> {
    const outcome = this.#basic!.authenticate(credentials, this.#now())
    return outcome instanceof Promise ? outcome.then((o) => this.#basicOutcome(o)) : this.#basicOutcome(outcome)
  }

  #bearerCaller (token: string): Avatar | Promise<Avatar> {
    if (!TOKEN68.test(token)) throw this.#invalidRequest('the bearer token is not a b64token')
    return this.#bearerToken(token)
  }

  #bearerToken (token: string): Avatar | Promise<Avatar> {
    // API keys go to the key store only: a gak_ value is never tried as a JWT.
    if (token.startsWith('gak_')) return this.#apiKeyCaller(token)
    const known = this.#tokens?.find(token)
    if (known !== undefined) return known
    if (this.#verifiers.length === 0) throw this.#invalidToken('The token is not valid')
    const cached = this.#jwtCache.get(token, this.#now())
    if (cached !== undefined) return cached
    return this.#jwtCaller(token)
  }

  #apiKeyCaller (key: string): Avatar | Promise<Avatar> {
    if (this.#apiKeys === undefined) throw this.#invalidToken('API keys are not accepted here')
    if (parseApiKey(key) === null) throw this.#invalidToken('Malformed API key')
    const found = this.#apiKeys.verify(key)
    return found instanceof Promise ? found.then((record) => this.#keyAvatar(record)) : this.#keyAvatar(found)
  }

  #keyAvatar (record: ApiKeyRecord | null): Avatar {
    if (record === null) throw this.#invalidToken('The API key is unknown, revoked or expired')
    let avatar = this.#keyAvatars.get(record)
    if (avatar === undefined) {
      avatar = new Avatar(record.label, { tags: record.tags, backend: 'api_key' })
      this.#keyAvatars.set(record, avatar)
    }
    return avatar
  }

  #jwtCaller (token: string): Avatar | Promise<Avatar> {
    const jws = decodeJws(token)
    if (jws === 'not-a-jws') throw this.#invalidToken('The token is not valid')
    if (jws === 'malformed') throw this.#invalidToken('The token is malformed')
    if (jws === 'critical') throw this.#invalidToken('The token uses unsupported critical header parameters')
    const candidates = this.#verifiers.filter((v) => v.algorithm === jws.header.alg)
    if (candidates.length === 0) throw this.#invalidToken('The token algorithm is not accepted')
    return this.#tryVerifiers(token, jws, candidates, 0, this.#now(), undefined)
  }

  // Tries the verifiers in order, synchronously while their keys are local;
  // continues asynchronously from the first one that needs a remote key.
  #tryVerifiers (token: string, jws: DecodedJws, candidates: readonly JwtVerifier[], from: number, now: number, failure: JwtFailure | undefined): Avatar | Promise<Avatar> {
    for (let i = from; i < candidates.length; i++) {
      const result = candidates[i]!.verify(jws, now)
      if (result instanceof Promise) {
        return result.then((settled) => {
          const avatar = this.#accept(token, settled, now)
          return avatar ?? this.#tryVerifiers(token, jws, candidates, i + 1, now, this.#worse(failure, settled as JwtFailure))
        })
      }
      const avatar = this.#accept(token, result, now)
      if (avatar !== undefined) return avatar
      failure = this.#worse(failure, result as JwtFailure)
    }
    if (failure?.unavailable === true) {
      throw new HttpError(503, 'Cannot verify the token now: the signing keys are unavailable', { code: KEYS_UNAVAILABLE, headers: { 'retry-after': '30' } })
    }
    throw this.#invalidToken(failure?.detail ?? 'The token is not valid')
  }

  #accept (token: string, result: VerifiedJwt | JwtFailure, now: number): Avatar | undefined {
    if (!('avatar' in result)) return undefined
    this.#jwtCache.set(token, result.avatar, Math.min(result.validUntil, now + this.#jwtTtlMs))
    return result.avatar
  }

  // A real refusal tells the caller more than "keys unavailable".
  #worse (kept: JwtFailure | undefined, next: JwtFailure): JwtFailure {
    return kept === undefined || kept.unavailable === true ? next : kept
  }
}
