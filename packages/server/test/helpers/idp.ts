import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
// The provider set-up is shared with the demo's --with-local-idp (one place).
import { startLocalIdp } from '../../../../examples/demo/src/local-idp.js'

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

/**
 * oidc-provider on 127.0.0.1 with one confidential client (`gatehouse`,
 * secret `gatehouse-client-secret`), PKCE required and a few fixed users
 * (any password; `unverified` has an unverified e-mail).
 */
export async function startIdp (redirectUris: string[]): Promise<TestIdp> {
  // oidc-provider's own warnings about development defaults are expected here.
  const idp = await startLocalIdp({ redirectUris, clientId: 'gatehouse', clientSecret: 'gatehouse-client-secret' })
  return { issuer: idp.issuer, close: idp.close }
}
