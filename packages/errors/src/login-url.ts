import { safeNextPath } from '@fastify-gatehouse/core'

/** The login page URL that brings the caller back to `requestUrl` (validated) after signing in. */
export function loginUrl (loginPage: string, requestUrl: string): string {
  return `${loginPage}?next=${encodeURIComponent(safeNextPath(requestUrl))}`
}
