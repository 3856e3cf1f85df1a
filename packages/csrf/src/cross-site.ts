import type { FastifyRequest } from 'fastify'
import { ownOrigin } from './own-origin.js'

/**
 * Builds the test "does this request come from another site, not allowed?".
 * Sec-Fetch-Site is set by the browser and cannot be forged by a page, so
 * when present it decides; `same-site` counts as foreign (a sibling
 * subdomain is another party). Without it (older browsers), the Origin
 * header is compared with the request's own origin.
 * D-CSRF-01: Sec-Fetch-Site first (pages cannot forge it), then Origin; same-site is another party.
 */
export function crossSiteTest (allowOrigins: readonly string[]): (request: FastifyRequest) => boolean {
  const allowed = new Set(allowOrigins)
  return function isForeign (request) {
    const origin = request.headers.origin
    const site = request.headers['sec-fetch-site']
    if (site === 'same-origin' || site === 'none') return false
    if (site === 'cross-site' || site === 'same-site') return origin === undefined || !allowed.has(origin)
    if (origin === undefined) return false
    // An opaque origin (sandboxed frame, data: URL) is never ours.
    if (origin === 'null') return true
    return !allowed.has(origin) && origin !== ownOrigin(request)
  }
}
