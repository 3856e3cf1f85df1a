/**
 * The path of a request target: origin-form as is; absolute-form
 * (`http://host/p`, which Fastify routes like `/p`) from its first `/`
 * after the authority; `*` and anything else: null.
 * D-WELLKNOWN-03.
 */
export function targetPath (url: string): string | null {
  if (url.charCodeAt(0) === 47 /* / */) return url
  const scheme = url.indexOf('://')
  if (scheme === -1) return null
  const slash = url.indexOf('/', scheme + 3)
  return slash === -1 ? null : url.slice(slash)
}

/**
 * Whether the first path segment starts with a dot, raw or percent-encoded
 * (`/.env`, `/%2Egit/config`, `//.env`). The router decodes `%2E`, so the
 * encoded form reaches the same routes.
 */
export function isDotPath (path: string): boolean {
  let i = 0
  while (path.charCodeAt(i) === 47) i++
  const c = path.charCodeAt(i)
  if (c === 46 /* . */) return true
  return c === 37 /* % */ && path.charCodeAt(i + 1) === 50 /* 2 */ && (path.charCodeAt(i + 2) | 32) === 101 /* e */
}
