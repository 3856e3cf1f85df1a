import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { acceptsHtml } from '@fastify-gatehouse/errors'
import * as oidc from 'openid-client'
import { Avatar, errorForLog, MAX_FRESH_SECONDS, redactText, safeNextPath, safeString } from '@fastify-gatehouse/core'
import { MAX_SESSION_CLAIMS_BYTES, type Session } from '@fastify-gatehouse/session'
import { GATEHOUSE_SERVER_OIDC_FAILED, GATEHOUSE_SERVER_SESSION_REQUIRED, notFound, oidcFailed, oidcUnavailable } from '../errors.js'
import type { AuthMethod, LoginMethodContext, LoginMethodDescription } from './auth-method.js'
import { sessionClaims } from './oidc-claims.js'
import { PAGE_HEADERS } from './html.js'
import { resolveOidcProvider, type OidcMethodContext, type OidcProviderOptions, type ResolvedOidcProvider } from './options.js'
import { renderSignInFailed } from './sign-in-failed-page.js'

/** A login in progress, kept in the session under its state until the callback consumes it. */
interface Transaction {
  provider: string
  verifier: string
  nonce: string
  next: string
  createdAt: number
  /** A re-authentication (`reauth=1`): the provider was asked for a new login (D-OIDC-12). */
  reauth?: boolean
}

// D-OIDC-03: in the session, keyed by state, at most five, ten minutes each.
const TRANSACTIONS = 'gatehouse.oidc'
const TRANSACTION_TTL_MS = 10 * 60 * 1000
const MAX_TRANSACTIONS = 5

// D-OIDC-12: every request asks for auth_time (OIDC Core makes it required
// with max_age); a plain sign-in accepts a provider session of any age up to
// the longest `fresh`, a re-authentication none.
const PLAIN_MAX_AGE = String(MAX_FRESH_SECONDS)
// How far the provider's clock may be off ours when it reports a login
// (openid-client's own default tolerance).
const CLOCK_TOLERANCE_MS = 30_000

/**
 * A browser that the provider sent back lands on a page, not on an error
 * body: a refused callback answers it with an HTML page (still 400, already
 * logged). Other callers, and other errors, go to the errors component.
 * D-OIDC-08.
 */
function refusalPage (err: unknown, request: FastifyRequest, reply: FastifyReply, prefix: string): FastifyReply {
  if (!(err instanceof GATEHOUSE_SERVER_OIDC_FAILED) || !acceptsHtml(request.headers.accept)) throw err
  const page = renderSignInFailed(err.message, prefix, request.scope.auth?.identity ?? null)
  return reply.code(400).headers(PAGE_HEADERS).type('text/html; charset=utf-8').send(page)
}

/**
 * What a log line says about an openid-client failure: its name, code,
 * message, the provider's `error`/`error_description`, the claim that failed.
 * Never the error's other fields (responses, id_token bytes, claims sets),
 * so never a code, a token or the client secret.
 * D-OIDC-07.
 */
export function oidcCauseForLog (thrown: unknown): { summary: string, cause: Record<string, unknown> } {
  if (!(thrown instanceof Error)) return { summary: redactText(safeString(thrown)), cause: {} }
  const err = thrown as Error & { code?: unknown, error?: unknown, error_description?: unknown, status?: unknown }
  // openid-client's messages are fixed strings; the provider's text is not.
  const cause: Record<string, unknown> = { name: err.name, message: err.message }
  if (typeof err.code === 'string') cause.code = err.code
  if (typeof err.error === 'string') cause.error = redactText(err.error)
  if (typeof err.error_description === 'string') cause.error_description = redactText(err.error_description)
  if (typeof err.status === 'number') cause.status = err.status
  const inner = err.cause as { claim?: unknown } | Error | undefined
  if (inner instanceof Error) cause.detail = inner.message
  else if (typeof inner?.claim === 'string') cause.claim = inner.claim
  let summary = typeof cause.detail === 'string' ? cause.detail : err.message
  if (typeof cause.error === 'string') summary = `the provider answered ${cause.error as string}${typeof cause.error_description === 'string' ? ` (${cause.error_description as string})` : ''}`
  return { summary, cause }
}

/**
 * Sign-in with an OpenID Provider: authorization code flow with PKCE S256,
 * state and nonce (openid-client). `GET <prefix>/auth/oidc:<name>/start`
 * redirects to the provider (`?reauth=1`: asking for a new login there);
 * `…/callback` checks the answer, validates the id_token, and signs the
 * caller in with a regenerated session, authenticated at the id_token's
 * `auth_time`.
 */
export class OidcMethod implements AuthMethod {
  readonly id: string
  readonly name: string
  readonly redirectUri: string
  readonly #provider: ResolvedOidcProvider
  readonly #allowInsecure: boolean
  readonly #now: () => number
  #configuration: Promise<oidc.Configuration> | undefined

  constructor (name: string, options: OidcProviderOptions, context: OidcMethodContext) {
    this.#provider = resolveOidcProvider(name, options, context)
    this.name = name
    this.id = `oidc:${name}`
    this.redirectUri = this.#provider.redirectUri
    this.#allowInsecure = context.allowInsecureIssuer === true
    this.#now = context.now ?? Date.now
  }

  describe (prefix: string): LoginMethodDescription {
    return { id: this.id, kind: 'redirect', label: this.#provider.label, url: `${prefix}/auth/oidc:${this.name}/start` }
  }

  // Discovery on first use, cached; a failure is retried on the next login (D-OIDC-04).
  #config (request: FastifyRequest): Promise<oidc.Configuration> {
    this.#configuration ??= oidc.discovery(
      new URL(this.#provider.issuer),
      this.#provider.clientId,
      undefined,
      oidc.ClientSecretPost(this.#provider.clientSecret),
      this.#allowInsecure ? { execute: [oidc.allowInsecureRequests], timeout: 5 } : { timeout: 5 }
    ).then((config) => {
      // Verify the id_token's signature against the provider's JWKS too
      // (openid-client skips it by default for token-endpoint answers). D-OIDC-05.
      oidc.enableNonRepudiationChecks(config)
      return config
    })
    return this.#configuration.catch((err: unknown) => {
      this.#configuration = undefined
      request.log.warn({ err: errorForLog(err) }, `oidc:${this.name}: discovery failed`)
      throw oidcUnavailable(err)
    })
  }

  register (app: FastifyInstance, context?: LoginMethodContext): void {
    // One pair of parametric routes serves every OIDC provider of this
    // `_server` app, added by the first of them from the app's list of
    // methods: route parameters are percent-decoded, so `oidc:local` and
    // `oidc%3Alocal` both arrive (D-OIDC-02, D-SERVER-62).
    const listed = (context?.methods ?? []).filter((m): m is OidcMethod => m instanceof OidcMethod)
    const providers = listed.includes(this) ? listed : [this]
    if (providers[0] !== this) return
    const byId = new Map(providers.map((m) => [m.id, m]))
    const method = (id: string): OidcMethod => {
      const m = byId.get(id)
      if (m === undefined) throw notFound(`No sign-in method ${id}`)
      return m
    }
    app.get<{ Params: { method: string }, Querystring: { next?: unknown, reauth?: unknown } }>('/auth/:method/start', (request, reply) => method(request.params.method).#start(request, reply))
    app.get<{ Params: { method: string }, Querystring: Record<string, string | undefined> }>('/auth/:method/callback', (request, reply) =>
      method(request.params.method).#callback(request, reply).catch((err: unknown) => refusalPage(err, request, reply, app.prefix)))
  }

  async #start (request: FastifyRequest<{ Querystring: { next?: unknown, reauth?: unknown } }>, reply: FastifyReply): Promise<FastifyReply> {
    const session = request.scope.session as Session | undefined
    if (session === undefined) throw new GATEHOUSE_SERVER_SESSION_REQUIRED()
    const config = await this.#config(request)
    const verifier = oidc.randomPKCECodeVerifier()
    const state = oidc.randomState()
    const nonce = oidc.randomNonce()
    const now = this.#now()
    const pending = { ...(session.get(TRANSACTIONS) as Record<string, Transaction> | undefined) }
    for (const [key, tx] of Object.entries(pending)) if (now - tx.createdAt > TRANSACTION_TTL_MS) delete pending[key]
    const oldest = Object.entries(pending).sort(([, a], [, b]) => a.createdAt - b.createdAt)
    while (oldest.length >= MAX_TRANSACTIONS) delete pending[oldest.shift()![0]]
    const reauth = request.query.reauth === '1'
    pending[state] = { provider: this.id, verifier, nonce, next: safeNextPath(request.query.next), createdAt: now, ...(reauth ? { reauth } : {}) }
    session.set(TRANSACTIONS, pending)
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: this.redirectUri,
      scope: this.#provider.scopes,
      state,
      nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      ...(reauth ? { prompt: 'login', max_age: '0' } : { max_age: PLAIN_MAX_AGE })
    })
    return reply.code(302).header('cache-control', 'no-store').header('location', url.href).send()
  }

  async #callback (request: FastifyRequest<{ Querystring: Record<string, string | undefined> }>, reply: FastifyReply): Promise<FastifyReply> {
    const session = request.scope.session as Session | undefined
    if (session === undefined) throw new GATEHOUSE_SERVER_SESSION_REQUIRED()
    const state = request.query.state
    const pending = { ...(session.get(TRANSACTIONS) as Record<string, Transaction> | undefined) }
    const tx = typeof state === 'string' ? pending[state] : undefined
    if (tx === undefined || tx.provider !== this.id || this.#now() - tx.createdAt > TRANSACTION_TTL_MS) {
      // No transaction: a forged, replayed or foreign callback (login CSRF).
      request.log.warn(`oidc:${this.name}: callback refused: its state matches no sign-in in progress in this session (forged, replayed, expired or from another browser)`)
      throw oidcFailed('No sign-in is in progress for this answer; start again')
    }
    delete pending[state!]
    session.set(TRANSACTIONS, pending)
    if (typeof request.query.error === 'string') {
      request.log.warn({ cause: { error: redactText(request.query.error), error_description: redactText(safeString(request.query.error_description ?? '')) } }, `oidc:${this.name}: callback refused: the provider answered ${redactText(request.query.error)}`)
      throw oidcFailed('The identity provider refused the sign-in')
    }
    const config = await this.#config(request)
    // The URL the provider redirected to, rebuilt from externalUrl (never Host).
    const current = new URL(this.redirectUri)
    current.search = new URL(request.url, 'http://placeholder').search
    let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>
    try {
      tokens = await oidc.authorizationCodeGrant(config, current, { pkceCodeVerifier: tx.verifier, expectedState: state, expectedNonce: tx.nonce, idTokenExpected: true })
    } catch (err) {
      const { summary, cause } = oidcCauseForLog(err)
      request.log.warn({ cause }, `oidc:${this.name}: callback refused: ${summary}`)
      throw oidcFailed('The sign-in could not be completed', err)
    }
    const claims = tokens.claims()
    if (claims === undefined) {
      request.log.warn(`oidc:${this.name}: callback refused: no id_token`)
      throw oidcFailed('The identity provider sent no id_token')
    }
    const claim = this.#provider.identityClaim
    let source: Record<string, unknown> = claims
    let userinfo: Record<string, unknown> | undefined
    if (claims[claim] === undefined) {
      try {
        source = userinfo = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub)
      } catch (err) {
        const { summary, cause } = oidcCauseForLog(err)
        request.log.warn({ cause }, `oidc:${this.name}: callback refused: userinfo failed: ${summary}`)
        throw oidcFailed('The identity provider did not name the user')
      }
    }
    const identity = source[claim]
    if (typeof identity !== 'string' || identity === '') {
      request.log.warn(`oidc:${this.name}: callback refused: no ${claim} claim in the id_token or userinfo`)
      throw oidcFailed(`The identity provider sent no ${claim}`)
    }
    if (claim === 'email' && source.email_verified === false) {
      request.log.warn(`oidc:${this.name}: callback refused: email_verified is false`)
      throw oidcFailed('The e-mail address is not verified by the identity provider')
    }
    const now = this.#now()
    // When the user last logged in at the provider: its SSO session may be days old.
    // One in the future (beyond the tolerance) is no sign-in, as for a JWT (D-AUTH-30). D-OIDC-12.
    const at = typeof claims.auth_time === 'number' ? claims.auth_time * 1000 : Number.NaN
    const authTime = Number.isFinite(at) && at <= now + CLOCK_TOLERANCE_MS ? Math.min(at, now) : null
    if (tx.reauth === true && (authTime === null || authTime < tx.createdAt - CLOCK_TOLERANCE_MS)) {
      request.log.warn(`oidc:${this.name}: callback refused: a re-authentication, but the id_token's auth_time ${authTime === null ? 'is missing or in the future' : 'predates its start'}`)
      throw oidcFailed('The provider did not ask you to sign in again')
    }
    // Kept with the session for its avatar; logged by name and size only (they may be personal data). D-OIDC-13.
    const found = sessionClaims(claims, userinfo, claim)
    if ('tooLarge' in found) {
      request.log.warn(`oidc:${this.name}: callback refused: the standard claims alone take ${found.tooLarge} bytes as JSON, more than a session keeps (${MAX_SESSION_CLAIMS_BYTES})`)
      throw oidcFailed('The identity provider sent more about you than this server can keep')
    }
    if (found.dropped.length > 0) {
      const names = found.dropped.slice(0, 10).map((name) => redactText(safeString(name)).slice(0, 64))
      request.log.warn(`oidc:${this.name}: the claims take ${found.bytes} bytes as JSON, more than a session keeps (${MAX_SESSION_CLAIMS_BYTES}): kept the standard ones, dropped ${found.dropped.length} (${names.join(', ')}${found.dropped.length > 10 ? ', …' : ''})`)
    }
    // Frozen once: the session keeps this copy, this request's avatar shares it.
    let avatar: Avatar
    try {
      avatar = new Avatar(identity, { tags: this.#provider.tags, backend: this.id, authenticatedAt: authTime, claims: found.kept })
    } catch {
      // JSON from a verified token, so only its nesting can be refused (more than 32 levels).
      request.log.warn(`oidc:${this.name}: callback refused: the claims are nested more deeply than an avatar takes`)
      throw oidcFailed('The identity provider sent more about you than this server can keep')
    }
    // D-OIDC-11; without auth_time the sign-in time is unknown, so no fresh route until a re-authentication.
    session.login(identity, [...this.#provider.tags], { via: this.id, authenticatedAt: authTime, claims: avatar.claims })
    // This request's caller came by OIDC, signed in at auth_time (D-SESSION-22, D-OIDC-12); later requests are `session`.
    request.scope.auth = avatar
    return reply.code(303).header('location', tx.next).send()
  }
}
