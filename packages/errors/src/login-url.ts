import { safeNextPath } from '@fastify-gatehouse/core'

/**
 * The login page URL that brings the caller back to `requestUrl` (validated) after signing in.
 * D-ERRORS-06: `next` goes through safeNextPath (`//evil.example` lands on `/`).
 */
export function loginUrl (loginPage: string, requestUrl: string): string {
  return `${loginPage}?next=${encodeURIComponent(safeNextPath(requestUrl))}`
}
