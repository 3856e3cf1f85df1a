import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * A controllable OpenID Provider for the refusal tests — NOT a correct
 * provider. It serves discovery, a JWKS, an authorization endpoint that
 * approves `alice` at once, and a token endpoint that signs id_tokens (RS256,
 * its own key) with whatever claims the test asks for: a wrong `iss` or
 * `aud`, a past `exp`, another `nonce`, a payload altered after signing, a
 * wrong RFC 9207 `iss` response parameter. A correct provider (oidc-provider,
 * helpers/idp.ts) never produces these; the flows themselves are tested
 * against oidc-provider.
 *
 * What it does check, like a real provider: the client secret, the redirect
 * URI, PKCE S256, and codes are one-time (a second exchange is
 * `invalid_grant`). Why it exists beside oidc-provider: D-OIDC-06.
 */
export interface RogueIdp {
  issuer: string
  clientId: string
  clientSecret: string
  /** How the next answers misbehave; reset to `{}` by the test as needed. */
  misbehave: Misbehaviour
  /** Every code this provider issued, in order. */
  codes: string[]
  /** Every access token and id_token this provider issued (to assert they are never logged). */
  issued: string[]
  close: () => Promise<void>
}

export interface Misbehaviour {
  /** Claims that replace or add to the id_token's (e.g. `{ aud: 'someone-else' }`). */
  claims?: Record<string, unknown>
  /** Sign the id_token, then change its `sub` to `admin` (the signature no longer matches). */
  forgeAfterSigning?: boolean
  /** The `iss` parameter of the authorization response (RFC 9207). */
  issParameter?: string
}

interface Pending { redirectUri: string, nonce: string, challenge: string, used: boolean }

const b64u = (data: Buffer | string): string => Buffer.from(data).toString('base64url')

function signJwt (key: KeyObject, kid: string, claims: Record<string, unknown>): string {
  const input = `${b64u(JSON.stringify({ alg: 'RS256', typ: 'JWT', kid }))}.${b64u(JSON.stringify(claims))}`
  return `${input}.${b64u(sign('sha256', Buffer.from(input), key))}`
}

function json (res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body))
}

async function formBody (req: IncomingMessage): Promise<URLSearchParams> {
  let body = ''
  for await (const chunk of req) {
    body += String(chunk)
    if (body.length > 10_000) break
  }
  return new URLSearchParams(body)
}

export async function startRogueIdp (redirectUri: string): Promise<RogueIdp> {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const kid = randomBytes(8).toString('hex')
  const pending = new Map<string, Pending>()
  const server: Server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const idp: RogueIdp = {
    issuer,
    clientId: 'rogue-client',
    clientSecret: 'rogue-client-secret-0123456789',
    misbehave: {},
    codes: [],
    issued: [],
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()) })
  }

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', issuer)
    if (req.method === 'GET' && url.pathname === '/.well-known/openid-configuration') {
      return json(res, 200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['client_secret_post'],
        authorization_response_iss_parameter_supported: true
      })
    }
    if (req.method === 'GET' && url.pathname === '/jwks') {
      return json(res, 200, { keys: [{ ...publicKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' }] })
    }
    if (req.method === 'GET' && url.pathname === '/authorize') {
      const q = url.searchParams
      if (q.get('client_id') !== idp.clientId || q.get('redirect_uri') !== redirectUri || q.get('code_challenge_method') !== 'S256') {
        res.writeHead(400, { 'content-type': 'text/plain' }).end('invalid_request: unknown client or redirect_uri')
        return
      }
      const code = randomBytes(24).toString('base64url')
      idp.codes.push(code)
      pending.set(code, { redirectUri, nonce: q.get('nonce') ?? '', challenge: q.get('code_challenge') ?? '', used: false })
      const back = new URL(redirectUri)
      back.searchParams.set('code', code)
      back.searchParams.set('state', q.get('state') ?? '')
      back.searchParams.set('iss', idp.misbehave.issParameter ?? issuer)
      res.writeHead(302, { location: back.href }).end()
      return
    }
    if (req.method === 'POST' && url.pathname === '/token') {
      formBody(req).then((form) => {
        const grant = pending.get(form.get('code') ?? '')
        if (form.get('client_id') !== idp.clientId || form.get('client_secret') !== idp.clientSecret) return json(res, 401, { error: 'invalid_client' })
        if (grant === undefined) return json(res, 400, { error: 'invalid_grant', error_description: 'unknown authorization code' })
        if (grant.used) return json(res, 400, { error: 'invalid_grant', error_description: 'authorization code already used' })
        grant.used = true
        if (form.get('redirect_uri') !== grant.redirectUri) return json(res, 400, { error: 'invalid_grant', error_description: 'redirect_uri mismatch' })
        if (createHash('sha256').update(form.get('code_verifier') ?? '').digest('base64url') !== grant.challenge) {
          return json(res, 400, { error: 'invalid_grant', error_description: 'PKCE verification failed' })
        }
        const now = Math.floor(Date.now() / 1000)
        const claims = { iss: issuer, sub: 'alice', aud: idp.clientId, iat: now, exp: now + 300, nonce: grant.nonce, email: 'alice@example.com', email_verified: true, ...idp.misbehave.claims }
        let idToken = signJwt(privateKey, kid, claims)
        if (idp.misbehave.forgeAfterSigning === true) {
          const [header, , signature] = idToken.split('.')
          idToken = `${header}.${b64u(JSON.stringify({ ...claims, sub: 'admin' }))}.${signature}`
        }
        const accessToken = randomBytes(24).toString('base64url')
        idp.issued.push(accessToken, idToken)
        json(res, 200, { access_token: accessToken, token_type: 'Bearer', expires_in: 300, id_token: idToken })
      }, () => res.destroy())
      return
    }
    res.writeHead(404).end()
  })
  return idp
}
