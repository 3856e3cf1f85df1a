import { generateKeyPairSync, randomBytes } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import Provider from 'oidc-provider'

/**
 * The fixed users of the local provider. Its development login form accepts
 * any password; `unverified` has an e-mail address the provider has not
 * verified (Gatehouse refuses it when `identityClaim` is `email`).
 */
export const LOCAL_IDP_USERS: Readonly<Record<string, Readonly<Record<string, unknown>>>> = Object.freeze({
  alice: Object.freeze({ email: 'alice@example.com', email_verified: true, name: 'Alice' }),
  unverified: Object.freeze({ email: 'mallory@example.com', email_verified: false })
})

/** Options of {@link startLocalIdp}. */
export interface LocalIdpOptions {
  /** The relying party's redirect URIs, registered for the client. */
  redirectUris: string[]
  /** Port on 127.0.0.1. Default: 0 (any free port). */
  port?: number
  /** Default: `gatehouse`. */
  clientId?: string
  /** Default: random for each start. */
  clientSecret?: string
}

/** A running local provider: what `serverApp.oidc.<name>` needs, and close(). */
export interface LocalIdp {
  issuer: string
  clientId: string
  clientSecret: string
  close: () => Promise<void>
}

/**
 * oidc-provider on 127.0.0.1 — for the demo and the tests, never for
 * production: one confidential client (client_secret_post, authorization
 * code only), PKCE required, its own RS256 signing key, in-memory storage,
 * oidc-provider's development login and consent forms, and the users of
 * {@link LOCAL_IDP_USERS}. It prints oidc-provider's warnings about these
 * development defaults on start. The tests import this one set-up (D-OIDC-09);
 * oidc-provider 8, the line made for Node 20 (D-OIDC-01).
 */
export async function startLocalIdp (options: LocalIdpOptions): Promise<LocalIdp> {
  const clientId = options.clientId ?? 'gatehouse'
  const clientSecret = options.clientSecret ?? randomBytes(24).toString('base64url')
  const server: Server = createServer()
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, '127.0.0.1', () => { server.off('error', reject); resolve() })
  })
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const provider = new Provider(issuer, {
    clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: options.redirectUris, grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'client_secret_post' }],
    pkce: { required: () => true },
    jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), kid: randomBytes(8).toString('hex'), alg: 'RS256', use: 'sig' }] },
    claims: { email: ['email', 'email_verified'], profile: ['name'] },
    findAccount: async (_ctx: unknown, id: string) => ({ accountId: id, claims: async () => ({ sub: id, ...LOCAL_IDP_USERS[id] }) }),
    features: { devInteractions: { enabled: true } },
    cookies: { keys: [randomBytes(24).toString('base64url')] },
    // Seconds; set explicitly (oidc-provider nags about its defaults).
    ttl: { AccessToken: 600, AuthorizationCode: 60, IdToken: 600, Interaction: 600, Session: 3600, Grant: 3600 }
  })
  server.on('request', provider.callback())
  return {
    issuer,
    clientId,
    clientSecret,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()) })
  }
}
