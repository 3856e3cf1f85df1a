import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import Provider from 'oidc-provider'

/** A free TCP port on loopback (bound and released: good enough for tests). */
export async function freePort (): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

export interface TestIdp {
  issuer: string
  close: () => Promise<void>
}

const USERS: Record<string, Record<string, unknown>> = {
  alice: { email: 'alice@example.com', email_verified: true, name: 'Alice' },
  unverified: { email: 'mallory@example.com', email_verified: false }
}

/**
 * oidc-provider on 127.0.0.1 with one confidential client, PKCE required
 * and a few fixed users (any password; `unverified` has an unverified e-mail).
 */
export async function startIdp (redirectUris: string[]): Promise<TestIdp> {
  const server: Server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const provider = new Provider(issuer, {
    clients: [{ client_id: 'gatehouse', client_secret: 'gatehouse-client-secret', redirect_uris: redirectUris, grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'client_secret_post' }],
    pkce: { required: () => true },
    claims: { email: ['email', 'email_verified'], profile: ['name'] },
    findAccount: async (_ctx: unknown, id: string) => ({ accountId: id, claims: async () => ({ sub: id, ...(USERS[id] ?? {}) }) }),
    features: { devInteractions: { enabled: true } },
    cookies: { keys: ['test-cookie-key-0123456789'] }
  })
  // oidc-provider's own warnings about development defaults are expected here.
  server.on('request', provider.callback())
  return { issuer, close: () => new Promise((resolve) => server.close(() => resolve())) }
}
