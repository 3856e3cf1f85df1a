import type { FastifyRequest } from 'fastify'
import { Avatar, formatChallenge, isThenable, shownScheme, signInWith, type CodedError } from '@fastify-gatehouse/core'
import { parseApiKey, type ApiKeyRecord, type ApiKeyStore } from './api-key.js'
import { MAX_AUTHORIZATION_LENGTH, parseAuthorization } from './authorization-header.js'
import type { BasicCredentialBackend, Outcome } from './basic.js'
import { basicBackend } from './basic-source.js'
import { StaticTokens, TOKEN68 } from './bearer.js'
import { bearerSource, TokenFunction } from './bearer-function.js'
import { BearerScheme } from './bearer-scheme.js'
import { BoundedCache } from './bounded-cache.js'
import { RepeatFilter } from './repeat-filter.js'
import { BAD_HEADER, GATEHOUSE_AUTH_KEYS_UNAVAILABLE, GATEHOUSE_AUTH_REVOCATION_UNAVAILABLE, INVALID_CREDENTIALS, INVALID_REQUEST, INVALID_TOKEN, refusal, REVOCATION_UNAVAILABLE, UNSUPPORTED_SCHEME, unauthorized } from './errors.js'
import { decodeJws, type DecodedJws } from './jws.js'
import { JwtVerifier, type JwtFailure, type VerifiedJwt } from './jwt.js'
import { resolveAuthOptions, type AuthOptions, type ResolvedAuthOptions } from './options.js'
import { storeCall } from './outside-call.js'
import { PasswordGuard, resolveLockout } from './password-guard.js'

// Basic sends the password with every request: its caller proved who they
// are just now. The backend's avatars are shared; each request gets its own.
// API keys and static tokens leave it null: never a sign-in (D-AUTH-29).
function signedInAt (avatar: Avatar, now: number): Avatar {
  return new Avatar(avatar.identity, { tags: avatar.tags, backend: avatar.backend, authenticatedAt: now })
}

// A printable ASCII character other than a space: the usual spelling's
// credential starts and ends with one, so the parser's trimming has nothing to
// take (NaN, past the end, is not one).
function isVisible (code: number): boolean {
  return code > 0x20 && code < 0x7f
}

/** AuthCore's options: the auth component's options, and a clock. */
export interface AuthCoreOptions extends AuthOptions {
  /** Clock, for tests. Default: `Date.now`. */
  now?: () => number
}

/**
 * Resolves the caller from an `Authorization` header value — no Fastify
 * here. Answers an {@link Avatar}, synchronously when no I/O or hashing is
 * needed, or throws/rejects with a coded 401 carrying an RFC 7235 challenge.
 */
export class AuthCore {
  readonly #basic: BasicCredentialBackend | undefined
  readonly #tokens: StaticTokens | undefined
  readonly #tokenFunction: TokenFunction | undefined
  // D-AUTH-47: the scheme of every bearer credential.
  readonly #scheme: BearerScheme
  readonly #verifiers: readonly JwtVerifier[]
  // D-AUTH-02: the verifiers of each algorithm, in order; built once.
  readonly #byAlgorithm = new Map<string, readonly JwtVerifier[]>()
  // Per algorithm: whether a token's `iss` picks among its verifiers.
  readonly #byIssuer = new Map<string, boolean>()
  readonly #apiKeys: ApiKeyStore | undefined
  // Whether any bearer credential is accepted (static, bearer.auth, JWT, API key).
  readonly #acceptsBearer: boolean
  readonly #timeoutMs: number
  readonly #jwtCache: BoundedCache<Avatar>
  readonly #jwtRepeats: RepeatFilter
  readonly #jwtTtlMs: number
  // Whether the JWT cache is asked with the static tokens, before the token's
  // syntax; with bearer.auth it is asked after the function (D-AUTH-46).
  readonly #jwtCacheFirst: boolean
  readonly #keyAvatars = new WeakMap<ApiKeyRecord, Avatar>()
  readonly #now: () => number
  readonly #basicChallenge: string
  readonly #realm: string
  readonly #challenges: readonly string[]
  /** Scheme names accepted (`Basic`, then the bearer type), as challenges write them; empty when nothing is configured. */
  readonly schemes: readonly string[]
  /** One challenge per accepted scheme (the `WWW-Authenticate` of a 401 for an anonymous caller); empty when nothing is configured. */
  readonly challenges: readonly string[]
  // Refusals of a token that was valid once (exp, maxAge): authenticateJwt may take them as no token.
  readonly #expiredRefusals = new WeakSet<object>()
  readonly #challenges401 = new BoundedCache<string>(64)

  private constructor (options: ResolvedAuthOptions, verifiers: readonly JwtVerifier[], now: () => number) {
    const { realm } = options
    this.#realm = realm
    this.#scheme = new BearerScheme(options.bearerType, options.bearerCase)
    // D-AUTH-62: every call into code we do not own has this limit.
    const timeoutMs = options.callbackTimeout * 1000
    this.#timeoutMs = timeoutMs
    this.#basic = basicBackend(options.basic, options.basicCache, new PasswordGuard(options.basicConcurrency, resolveLockout(options.basicLockout), now, timeoutMs), timeoutMs)
    const tokens = bearerSource(options.bearer, timeoutMs)
    this.#tokens = tokens instanceof StaticTokens ? tokens : undefined
    this.#tokenFunction = tokens instanceof TokenFunction ? tokens : undefined
    this.#verifiers = verifiers
    for (const v of verifiers) this.#byAlgorithm.set(v.algorithm, [...(this.#byAlgorithm.get(v.algorithm) ?? []), v])
    // D-AUTH-58: with one verifier the signature is checked before the
    // payload is parsed, as ever; with several, exact issuers let a token
    // skip the others' signature checks.
    for (const [alg, list] of this.#byAlgorithm) this.#byIssuer.set(alg, list.length > 1 && list.some((v) => v.hasIssuers))
    this.#apiKeys = options.apiKeys
    this.#acceptsBearer = tokens !== undefined || verifiers.length > 0 || options.apiKeys !== undefined
    this.#jwtCache = new BoundedCache(options.jwtCache.max)
    this.#jwtRepeats = new RepeatFilter(options.jwtCache.max)
    this.#jwtTtlMs = options.jwtCache.ttl * 1000
    this.#jwtCacheFirst = this.#tokenFunction === undefined && verifiers.length > 0
    this.#now = now
    this.#basicChallenge = formatChallenge('Basic', { realm, charset: 'UTF-8' })
    const challenges: string[] = []
    if (this.#basic !== undefined) challenges.push(this.#basicChallenge)
    const schemes = this.#basic === undefined ? [] : ['Basic']
    if (this.#acceptsBearer) schemes.push(this.#scheme.name)
    this.schemes = Object.freeze(schemes)
    if (this.#acceptsBearer || challenges.length === 0) challenges.push(this.#scheme.challenge(realm))
    this.#challenges = challenges
    this.challenges = Object.freeze(schemes.length === 0 ? [] : [...challenges])
  }

  /** Builds the backends and imports the JWT keys; throws `GATEHOUSE_AUTH_INVALID_CONFIG` naming a bad entry. */
  static async create (options: AuthCoreOptions = {}): Promise<AuthCore> {
    const resolved = resolveAuthOptions(options)
    const verifiers = await Promise.all(resolved.jwt.map((v) => JwtVerifier.create(v, resolved.callbackTimeout * 1000)))
    return new AuthCore(resolved, verifiers, options.now ?? Date.now)
  }

  #bearerChallenge (error?: string, description?: string): string {
    if (error === undefined) return this.#scheme.challenge(this.#realm, error, description)
    // A refusal's challenge is one of a few: formatting it (quoting, checking
    // characters) was a fifth of what refusing garbage cost. Bounded: a detail
    // may name a claim. D-AUTH-56.
    const key = `${error}\n${description ?? ''}`
    let challenge = this.#challenges401.get(key, 0)
    if (challenge === undefined) {
      challenge = this.#scheme.challenge(this.#realm, error, description)
      this.#challenges401.set(key, challenge, Number.POSITIVE_INFINITY)
    }
    return challenge
  }

  #invalidToken (detail: string): CodedError {
    return unauthorized(INVALID_TOKEN, detail, this.#bearerChallenge('invalid_token', detail))
  }

  // RFC 6750 §3.1: a malformed request is `invalid_request`, which SHOULD be
  // a 400: the client is broken, asking it to authenticate again would not help (D-AUTH-22).
  #invalidRequest (reason: string): CodedError {
    const detail = `Malformed bearer request: ${reason}`
    return refusal(INVALID_REQUEST, detail, { 'www-authenticate': this.#bearerChallenge('invalid_request', detail) })
  }

  /**
   * The caller for an `Authorization` header value. Never returns null: a
   * header that is present must be valid. `request` (the Fastify request,
   * when there is one) is handed to `basic.validate` and `bearer.auth`, and
   * gives the lockout its client address.
   */
  authenticate (header: string, request?: FastifyRequest): Avatar | Promise<Avatar> {
    // The usual spelling (the scheme as configured, one space, a credential
    // with no padding) holds exactly what the parser would find: it goes to the
    // same dispatch without being parsed, and only a credential that fails
    // the strict check there is parsed, for the reason. D-AUTH-82.
    if (header.length <= MAX_AUTHORIZATION_LENGTH && isVisible(header.charCodeAt(header.length - 1))) {
      const bearer = this.#scheme.prefix
      if (this.#acceptsBearer && header.startsWith(bearer) && isVisible(header.charCodeAt(bearer.length))) {
        return this.#bearerCaller(header.slice(bearer.length), header, request)
      }
      if (this.#basic !== undefined && header.startsWith('Basic ') && isVisible(header.charCodeAt(6))) {
        return this.#basicCaller(header.slice(6), header, request)
      }
    }
    const parsed = parseAuthorization(header)
    if (typeof parsed === 'string') throw this.#malformed(header, parsed)
    if (parsed.scheme === 'basic' && this.#basic !== undefined) return this.#basicCaller(parsed.credentials, undefined, request)
    if (this.#acceptsBearer && this.#scheme.is(parsed.scheme, header)) return this.#bearerCaller(parsed.credentials, undefined, request)
    if (this.#acceptsBearer && this.#scheme.miscased(parsed.scheme, header)) {
      throw unauthorized(UNSUPPORTED_SCHEME, `The scheme must be written exactly ${this.#scheme.name}`, this.#challenges)
    }
    throw this.#unsupportedScheme(header)
  }

  // A header the parser refuses: RFC 6750's invalid_request when it names the bearer scheme.
  #malformed (header: string, reason: string): CodedError {
    if (this.#acceptsBearer && this.#scheme.names(header)) return this.#invalidRequest(reason)
    return unauthorized(BAD_HEADER, `Malformed Authorization header: ${reason}`, this.#challenges)
  }

  // D-AUTH-74: names the scheme as sent and the ones accepted, as the challenges do.
  #unsupportedScheme (header: string): CodedError {
    // D-AUTH-79: a value without a space is a bare credential, never named.
    const sent = shownScheme(header)
    const scheme = sent === undefined ? 'This scheme' : `The ${sent} scheme`
    const accepted = this.schemes.length === 0 ? 'No scheme is configured' : signInWith(this.schemes)
    return unauthorized(UNSUPPORTED_SCHEME, `${scheme} is not accepted here. ${accepted}`, this.#challenges)
  }

  #basicOutcome (outcome: Outcome): Avatar {
    if (outcome instanceof Avatar) return signedInAt(outcome, this.#now())
    throw unauthorized(outcome.refused === 'malformed' ? BAD_HEADER : INVALID_CREDENTIALS, outcome.detail, this.#basicChallenge)
  }

  /**
   * Basic credentials, from the parser or (with `header`, unparsed) from the
   * usual spelling: the credentials already verified are asked first, then
   * the header's grammar, then the backend, each once.
   */
  #basicCaller (credentials: string, header: string | undefined, request: unknown): Avatar | Promise<Avatar> {
    const basic = this.#basic!
    const now = this.#now()
    const known = basic.known(credentials, now)
    if (known !== undefined) return signedInAt(known, now)
    if (header !== undefined) {
      const parsed = parseAuthorization(header)
      if (typeof parsed === 'string') throw this.#malformed(header, parsed)
    }
    const outcome = basic.authenticate(credentials, now, request)
    return outcome instanceof Promise ? outcome.then((o) => this.#basicOutcome(o)) : this.#basicOutcome(outcome)
  }

  /**
   * A bearer credential, from the parser or (with `header`, unparsed) from
   * the usual spelling. Each source is asked once, in order: the answers
   * already known (a configured token, a verified JWT: each was checked when
   * it was stored, so they are asked before the token's syntax, which costs
   * more than finding it), the b64token check, then the API key store, the
   * `bearer.auth` function, the JWT verifiers.
   */
  #bearerCaller (token: string, header: string | undefined, request: FastifyRequest | undefined): Avatar | Promise<Avatar> {
    // API keys go to the key store only: a gak_ value is never tried as a JWT.
    const apiKey = token.startsWith('gak_')
    if (!apiKey) {
      // With bearer.auth, the function is asked first, cached JWT or not (D-AUTH-46).
      const known = this.#tokens?.find(token) ?? (this.#jwtCacheFirst ? this.#jwtCache.get(token, this.#now()) : undefined)
      if (known !== undefined) return known
    }
    if (!TOKEN68.test(token)) throw this.#notToken68(header)
    if (apiKey) return this.#apiKeyCaller(token)
    // D-AUTH-46: bearer.auth takes the static map's place, before the JWT verifiers.
    if (this.#tokenFunction !== undefined) {
      const found = this.#tokenFunction.find(token, request)
      if (found instanceof Promise) return found.then((avatar) => avatar ?? this.#jwtOrRefuse(token, request))
      if (found !== null) return found
    }
    return this.#jwtOrRefuse(token, request)
  }

  // The usual spelling unparsed: the parser names what is wrong (control characters), if it can.
  #notToken68 (header: string | undefined): CodedError {
    const parsed = header === undefined ? undefined : parseAuthorization(header)
    return typeof parsed === 'string' ? this.#malformed(header!, parsed) : this.#invalidRequest('the bearer token is not a b64token')
  }

  #jwtOrRefuse (token: string, request: FastifyRequest | undefined): Avatar | Promise<Avatar> {
    if (this.#verifiers.length === 0) throw this.#invalidToken('The token is not valid')
    // Asked here only when bearer.auth came first (#bearerCaller asked it otherwise).
    if (!this.#jwtCacheFirst) {
      const cached = this.#jwtCache.get(token, this.#now())
      if (cached !== undefined) return cached
    }
    return this.#jwtCaller(token, request)
  }

  #apiKeyCaller (key: string): Avatar | Promise<Avatar> {
    if (this.#apiKeys === undefined) throw this.#invalidToken('API keys are not accepted here')
    if (parseApiKey(key) === null) throw this.#invalidToken('Malformed API key')
    const apiKeys = this.#apiKeys
    const found = storeCall('ApiKeyStore.verify', this.#timeoutMs, () => apiKeys.verify(key))
    // A store of yours may answer with another library's promise (D-CORE-04).
    return isThenable(found) ? found.then((record) => this.#keyAvatar(record)) : this.#keyAvatar(found)
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

  #jwtCaller (token: string, request: FastifyRequest | undefined): Avatar | Promise<Avatar> {
    const jws = decodeJws(token)
    if (jws === 'not-a-jws') throw this.#invalidToken('The token is not valid')
    if (jws === 'malformed') throw this.#invalidToken('The token is malformed')
    if (jws === 'critical') throw this.#invalidToken('The token uses unsupported critical header parameters')
    // D-AUTH-02: the token's alg picks the verifiers; `none` or HS-with-an-RSA-key never reaches a key.
    const alg = jws.header.alg as string
    const candidates = this.#byAlgorithm.get(alg)
    if (candidates === undefined) throw this.#invalidToken('The token algorithm is not accepted')
    return this.#tryVerifiers(token, jws, candidates, this.#byIssuer.get(alg)!, 0, this.#now(), undefined, request)
  }

  // Tries the verifiers in order, synchronously while their keys are local;
  // continues asynchronously from the first one that needs a remote key.
  #tryVerifiers (token: string, jws: DecodedJws, candidates: readonly JwtVerifier[], byIssuer: boolean, from: number, now: number, failure: JwtFailure | undefined, request: FastifyRequest | undefined): Avatar | Promise<Avatar> {
    for (let i = from; i < candidates.length; i++) {
      const candidate = candidates[i]!
      const skipped = candidate.cannotAccept(jws, byIssuer)
      if (skipped !== undefined) {
        failure = this.#worse(failure, skipped)
        continue
      }
      const result = candidate.verify(jws, now, request)
      if (result instanceof Promise) {
        return result.then((settled) => {
          const avatar = this.#accept(token, settled, now)
          return avatar ?? this.#tryVerifiers(token, jws, candidates, byIssuer, i + 1, now, this.#worse(failure, settled as JwtFailure), request)
        })
      }
      const avatar = this.#accept(token, result, now)
      if (avatar !== undefined) return avatar
      failure = this.#worse(failure, result as JwtFailure)
    }
    // D-AUTH-03: unreachable keys are a 503; the caller's token may be fine.
    if (failure?.unavailable === true) throw unavailable(failure)
    const refusal = this.#invalidToken(failure?.detail ?? 'The token is not valid')
    if (failure?.expired === true) this.#expiredRefusals.add(refusal)
    throw refusal
  }

  /**
   * The caller for a JWT that came without an `Authorization` header (the
   * `jwtCookie`): only the JWT verifiers are asked, never the static tokens
   * or API keys. Refusals are those of a bearer JWT (401 `invalid_token`,
   * 503); with `expiredIsAnonymous`, a token that was valid once and has
   * expired answers `null` (no caller) instead.
   * D-AUTH-53.
   */
  authenticateJwt (token: string, request?: FastifyRequest, expiredIsAnonymous = false): Avatar | null | Promise<Avatar | null> {
    if (token.length > MAX_AUTHORIZATION_LENGTH || !TOKEN68.test(token)) throw this.#invalidToken('The token is malformed')
    const cached = this.#jwtCache.get(token, this.#now())
    if (cached !== undefined) return cached
    if (this.#verifiers.length === 0) throw this.#invalidToken('The token is not valid')
    if (!expiredIsAnonymous) return this.#jwtCaller(token, request)
    try {
      const caller = this.#jwtCaller(token, request)
      return caller instanceof Promise ? caller.catch((err: unknown) => this.#anonymousIfExpired(err)) : caller
    } catch (err) {
      return this.#anonymousIfExpired(err)
    }
  }

  #anonymousIfExpired (err: unknown): null {
    if (err !== null && typeof err === 'object' && this.#expiredRefusals.has(err)) return null
    throw err
  }

  #accept (token: string, result: VerifiedJwt | JwtFailure, now: number): Avatar | undefined {
    if (!('avatar' in result)) return undefined
    // D-AUTH-61: once the cache is full, a token must come back to get in.
    this.#jwtCache.admit(token, result.avatar, Math.min(result.validUntil, now + this.#jwtTtlMs), now, this.#jwtRepeats)
    return result.avatar
  }

  // A real refusal tells the caller more than "keys unavailable" (D-AUTH-03).
  #worse (kept: JwtFailure | undefined, next: JwtFailure): JwtFailure {
    return kept === undefined || kept.unavailable === true ? next : kept
  }
}

// A 503 for a failure that is not the caller's: the key set, the key resolver, the revocation check.
function unavailable (failure: JwtFailure): CodedError {
  const Unavailable = failure.code === REVOCATION_UNAVAILABLE ? GATEHOUSE_AUTH_REVOCATION_UNAVAILABLE : GATEHOUSE_AUTH_KEYS_UNAVAILABLE
  return new Unavailable({ cause: failure.cause })
}
