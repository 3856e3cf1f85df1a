/** A list option as given: a list, or one comma-separated string. */
export type ListOption = string | readonly string[]

/** The items of a list option (never the caller's array); trimmed, empties dropped. */
export function parseList (value: ListOption): string[] {
  const items = typeof value === 'string' ? value.split(',') : value
  return items.map((item) => item.trim()).filter((item) => item !== '')
}

// A serialized origin (RFC 6454) as browsers send it: scheme://host[:port],
// lower-case, no path; so comparisons are plain string equality.
const ORIGIN = /^[a-z][a-z0-9+.-]*:\/\/(\[[0-9a-f:.]+\]|[a-z0-9._~%!$&'()*+,;=-]+)(:\d{1,5})?$/

/** Whether `value` is an origin as browsers serialise it in the `Origin` header. */
export function isSerializedOrigin (value: string): boolean {
  return ORIGIN.test(value)
}
