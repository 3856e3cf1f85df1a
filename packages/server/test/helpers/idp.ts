// The provider set-up is shared with the demo's --with-local-idp (one place).
import { startLocalIdp } from '../../../../examples/demo/src/local-idp.js'

export { freePort } from '../../../../test-helpers/port.js'

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
