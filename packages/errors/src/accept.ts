// Just enough of RFC 9110 §12.5.1 to answer two questions: does the caller
// accept HTML, and does it accept JSON? A range with q=0 is a refusal.

// D-ERRORS-03 (text/plain only when HTML is listed and JSON is not) and D-ERRORS-04 (navigations).
function acceptedTypes (accept: string | undefined): string[] {
  if (accept === undefined || accept === '') return []
  const types: string[] = []
  for (const range of accept.split(',')) {
    const [type = '', ...params] = range.split(';')
    const q = params.map((p) => p.trim().toLowerCase()).find((p) => p.startsWith('q='))
    if (q !== undefined && !(Number.parseFloat(q.slice(2)) > 0)) continue
    types.push(type.trim().toLowerCase())
  }
  return types
}

/** The caller lists `text/html` explicitly (a browser), not just `*\/*`. */
export function acceptsHtml (accept: string | undefined): boolean {
  return acceptedTypes(accept).includes('text/html')
}

/** The caller lists `application/json` or a `+json` type. */
export function acceptsJson (accept: string | undefined): boolean {
  return acceptedTypes(accept).some((type) => type === 'application/json' || type.endsWith('+json'))
}
