// What every HTML page Gatehouse renders shares, whichever package renders
// it (the `_server` app's pages, the errors component's 403 page): one
// escaping rule and one set of headers, so they cannot drift apart (D-ERRORS-14).

const ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

/** Escapes text for HTML element content and quoted attribute values. */
export function escapeHtml (value: string): string {
  return value.replace(/[&<>"']/g, (c) => ENTITIES[c]!)
}

/**
 * Headers of every HTML page Gatehouse renders: a strict CSP (scripts and
 * styles only from files of this origin, forms posting only here), no
 * framing, no referrer, no caching.
 * D-SERVER-02.
 */
export const PAGE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store'
})
