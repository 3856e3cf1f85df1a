// HTTP-date (RFC 9110 §5.6.7): recipients accept IMF-fixdate and the two
// obsolete forms. Date.parse is not used: it accepts many strings that are
// not HTTP-dates (a lone "1" is a date in 2001), and such values must be
// ignored, not compared.

// D-CACHE-04.
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']
const IMF_FIXDATE = /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\d{2}) ([A-Z][a-z]{2}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/
const RFC850 = /^(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), (\d{2})-([A-Z][a-z]{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) GMT$/
const ASCTIME = /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) ([A-Z][a-z]{2}) ( \d|\d{2}) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/

function build (year: number, month: string, day: string, hh: string, mm: string, ss: string): number {
  const m = MONTHS.indexOf(month)
  const d = Number(day)
  const h = Number(hh)
  const min = Number(mm)
  const s = Number(ss)
  // 60 is allowed for a leap second (RFC 9110 §5.6.7); treat it as 59.
  if (m === -1 || d < 1 || d > 31 || h > 23 || min > 59 || s > 60) return NaN
  const time = Date.UTC(year, m, d, h, min, Math.min(s, 59))
  // Date.UTC rolls 31 Feb over to March; such a date is invalid.
  return new Date(time).getUTCDate() === d ? time : NaN
}

/** Milliseconds since the epoch of an HTTP-date, or NaN when `value` is not one. */
export function parseHttpDate (value: string): number {
  let m = IMF_FIXDATE.exec(value)
  if (m !== null) return build(Number(m[3]), m[2]!, m[1]!, m[4]!, m[5]!, m[6]!)
  m = RFC850.exec(value)
  if (m !== null) {
    // A two-digit year more than 50 years ahead is the most recent past year
    // with those digits (RFC 9110 §5.6.7).
    const now = new Date().getUTCFullYear()
    let year = Math.floor(now / 100) * 100 + Number(m[3])
    if (year > now + 50) year -= 100
    return build(year, m[2]!, m[1]!, m[4]!, m[5]!, m[6]!)
  }
  m = ASCTIME.exec(value)
  if (m !== null) return build(Number(m[6]), m[1]!, m[2]!.trim(), m[3]!, m[4]!, m[5]!)
  return NaN
}
