// The classic mistakes of an origin RegExp, found at boot and logged as
// warnings (the RegExp still works as written: it may be meant). D-CORS-08.

interface Shape {
  /** A `|` outside every group and class: each alternative is anchored on one side only. */
  topLevelAlternation: boolean
  /** A `.` outside a class, not escaped, followed by a letter or digit (`app.example`): any character. */
  bareDot: boolean
  /** The pattern ends with an unescaped `$`. */
  endAnchored: boolean
}

// One pass over the source: escapes, classes and group depth are all the
// grammar these three questions need.
function shape (source: string): Shape {
  let depth = 0
  let inClass = false
  let topLevelAlternation = false
  let bareDot = false
  let endAnchored = false
  for (let i = 0; i < source.length; i++) {
    const c = source[i]
    endAnchored = false
    if (c === '\\') {
      i++
      continue
    }
    if (inClass) {
      if (c === ']') inClass = false
      continue
    }
    if (c === '[') inClass = true
    else if (c === '(') depth++
    else if (c === ')') depth--
    else if (c === '|' && depth === 0) topLevelAlternation = true
    else if (c === '.' && /[A-Za-z0-9]/.test(source[i + 1] ?? '')) bareDot = true
    else if (c === '$') endAnchored = true
  }
  return { topLevelAlternation, bareDot, endAnchored }
}

/** What is likely wrong with `pattern` as an origin test, one sentence each; empty when nothing is. */
export function regexpWarnings (pattern: RegExp): string[] {
  const { topLevelAlternation, bareDot, endAnchored } = shape(pattern.source)
  const warnings: string[] = []
  if (!pattern.source.startsWith('^') || !endAnchored) {
    warnings.push(`${String(pattern)} is not anchored with ^ and $, so it also matches origins that merely contain a match (/example\\.com/ matches https://example.com.attacker.net)`)
  } else if (topLevelAlternation) {
    warnings.push(`${String(pattern)} has alternatives outside a group, so ^ anchors only the first and $ only the last; write ^(?:a|b)$`)
  }
  if (bareDot) {
    warnings.push(`${String(pattern)} has an unescaped "." between names, which matches any character (app.example.com matches appxexample.com); write \\.`)
  }
  return warnings
}
