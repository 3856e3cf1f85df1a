/**
 * The Vary value once Accept-Encoding is added to `existing`, or undefined
 * when it needs no change (already listed, or `*`). Field names compare
 * case-insensitively; values given as a list are joined.
 */
export function varyWithAcceptEncoding (existing: unknown): string | undefined {
  if (existing === undefined || existing === '') return 'Accept-Encoding'
  const value = Array.isArray(existing) ? existing.join(', ') : String(existing)
  for (const name of value.split(',')) {
    const token = name.trim().toLowerCase()
    if (token === 'accept-encoding' || token === '*') return undefined
  }
  return `${value}, Accept-Encoding`
}
