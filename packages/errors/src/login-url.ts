import { safeNextPath } from '@fastify-gatehouse/core'

/**
 * The login page URL that brings the caller back to `requestUrl` (validated) after signing in;
 * with `reauth`, it adds `reauth=1`: the caller is signed in, but too long ago for the route.
 * D-ERRORS-06: `next` goes through safeNextPath (`//evil.example` lands on `/`).
 */
export function loginUrl (loginPage: string, requestUrl: string, reauth = false): string {
  return `${loginPage}?next=${encodeURIComponent(safeNextPath(requestUrl))}${reauth ? '&reauth=1' : ''}`
}
