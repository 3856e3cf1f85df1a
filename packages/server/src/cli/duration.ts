import { quoteValue } from './arguments.js'
import { UsageError } from './io.js'

const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }

/** `30d`, `12h`, `90m`, `3600s`, `2w` from `now`, or an ISO date. */
export function parseExpiry (value: string, now: Date): Date {
  const relative = /^(\d{1,6})([smhdw])$/.exec(value)
  if (relative !== null) return new Date(now.getTime() + Number(relative[1]) * UNITS[relative[2]!]!)
  if (/^\d{4}-\d{2}-\d{2}/.test(value)) {
    const date = new Date(value)
    if (!Number.isNaN(date.getTime())) return date
  }
  // D-CLI-21: what is accepted, and why a negative time is not.
  const past = /^-\d+[smhdw]?$/.test(value) ? ' (a key cannot expire in the past)' : ''
  throw new UsageError(`--expires takes a time from now, a whole number and one of s, m, h, d, w (30d, 12h, 90m, 3600s, 2w), or an ISO date (2027-01-31, 2027-01-31T12:00:00Z), not ${quoteValue(value)}${past}`)
}
