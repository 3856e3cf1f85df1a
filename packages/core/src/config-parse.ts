// Parsing a config file's text, with errors that point at the line: the
// reason, `line L, column C`, and the line with a caret under the column
// (what the yaml package's prettyErrors prints), the line's secret-looking
// values masked, since boot errors end up in logs.
// D-CONFIG-09.
import { parseDocument } from 'yaml'
import { referenceTags } from './config-secrets.js'
import { REDACTED } from './redact.js'
import { isSecretName } from './secret-name.js'

/** A parse failure: the reason and, when known, the character offset it points at. */
export class ConfigSyntaxError extends Error {
  constructor (message: string, readonly offset: number | undefined) {
    super(message)
  }
}

// A key whose name says its value is secret (`token:`, `"password_hash":`): the rest of the line goes.
const KEY = /(["']?)([A-Za-z0-9_.$-]+)\1\s*:(?=\s|$|["'{[])/g
// A URL's user information (`postgres://user:password@host`).
const USERINFO = /(?<=:\/\/)[^\s/@]+(?=@)/g
// Long runs of letters and digits are how generated tokens, API keys and JWTs look.
const RANDOM = /[A-Za-z0-9+/=_~.-]{16,}/g

// The parts of `line` that may be secrets, as [start, end) ranges, in order, not overlapping.
function secretRanges (line: string): Array<[number, number]> {
  const ranges: Array<[number, number]> = []
  for (const match of line.matchAll(KEY)) {
    if (isSecretName(match[2]!)) {
      const value = match.index + match[0].length
      ranges.push([value + (/^\s*/.exec(line.slice(value))?.[0].length ?? 0), line.length])
      break
    }
  }
  for (const match of line.matchAll(USERINFO)) ranges.push([match.index, match.index + match[0].length])
  for (const match of line.matchAll(RANDOM)) {
    if (/\d/.test(match[0]) && /[A-Za-z]/.test(match[0])) ranges.push([match.index, match.index + match[0].length])
  }
  ranges.sort((a, b) => a[0] - b[0])
  return ranges.filter((range, i) => i === 0 || range[0] >= ranges[i - 1]![1])
}

/**
 * `line` as an error may show it, values that may be secrets replaced by
 * `[REDACTED]`, and where the caret for `column` (1-based) goes in it.
 */
export function maskLine (line: string, column: number): { line: string, column: number } {
  let shown = ''
  let at = 0
  let caret = column
  for (const [start, end] of secretRanges(line)) {
    shown += line.slice(at, start) + REDACTED
    // A caret past a masked part moves by what the mask changed; one inside it points at the mask.
    if (column - 1 >= end) caret += REDACTED.length - (end - start)
    else if (column - 1 >= start) caret = shown.length - REDACTED.length + 1
    at = end
  }
  return { line: shown + line.slice(at), column: caret }
}

// A line that is a key of its own, `key:` or `- key:` (its value may follow on the same line).
const KEY_LINE = /^\s*(?:-\s+)*(["']?)([A-Za-z0-9_.$-]+)\1\s*:(?:\s|$)/

const indentOf = (line: string): number => /^[ \t-]*/.exec(line)![0].length

/**
 * Whether line `index` of `lines` is a bare value (no `key:` of its own)
 * whose key, on the nearest less indented line before it, is secret-named:
 * `password:` with the value on the next line, a block scalar, a plain
 * scalar continued. All of such a line may be secret. D-CONFIG-13.
 */
function underSecretKey (lines: string[], index: number): boolean {
  const line = lines[index]!
  if (KEY_LINE.test(line)) return false
  const indent = indentOf(line)
  for (let i = index - 1; i >= 0; i--) {
    const above = lines[i]!
    if (above.trim() === '' || above.trim().startsWith('#') || indentOf(above) >= indent) continue
    const key = KEY_LINE.exec(above)?.[2]
    return key !== undefined && isSecretName(key)
  }
  return false
}

/** Line `index` of `lines` as an error may show it, and where the caret for `column` goes. */
function maskFramed (lines: string[], index: number, column: number): { line: string, column: number } {
  const line = lines[index] ?? ''
  if (!underSecretKey(lines, index)) return maskLine(line, column)
  const start = /^\s*/.exec(line)![0].length
  if (start === line.length) return { line, column }
  return { line: line.slice(0, start) + REDACTED, column: Math.min(column, start + 1) }
}

/**
 * `reason at line L, column C:` and a frame of the line at `offset` of
 * `text` (and of the line before, when that line is blank: an error at the
 * end of the file).
 */
export function describeAt (reason: string, text: string, offset: number): string {
  const lines = text.slice(0, Math.min(offset, text.length)).split('\n')
  const lineNumber = lines.length
  const column = lines.at(-1)!.length + 1
  const all = text.split('\n').map((line) => line.replace(/\r$/, ''))
  const gutter = String(lineNumber).length
  const row = (n: number, line: string): string => `  ${String(n).padStart(gutter)} | ${line}`
  const shown = maskFramed(all, lineNumber - 1, column)
  const frame = [
    ...(shown.line.trim() === '' && lineNumber > 1 ? [row(lineNumber - 1, maskFramed(all, lineNumber - 2, 1).line)] : []),
    row(lineNumber, shown.line),
    `  ${' '.repeat(gutter)} | ${' '.repeat(shown.column - 1)}^`
  ]
  return `${reason} at line ${lineNumber}, column ${column}:\n${frame.join('\n')}`
}

// D-CONFIG-13: the yaml package's reasons quote the source (`Unresolved tag: !Pa55-word`,
// `Invalid escape sequence \q…`), which may be a secret: where a code's reason can, a fixed sentence.
const REASONS: Readonly<Record<string, string>> = {
  TAG_RESOLVE_FAILED: 'Unresolved tag (a config file knows only !env and !file, on a value)',
  BAD_DQ_ESCAPE: 'Invalid escape sequence in a double-quoted string',
  BAD_PROP_ORDER: 'Anchors and tags must be after the indicator',
  BAD_DIRECTIVE: 'Unknown or invalid directive',
  BAD_ALIAS: 'Unresolved alias'
}

/**
 * The reason of a yaml error that quotes no source text: the fixed
 * sentence of its code, or its text before the first `:` (after which the
 * yaml package puts what it found), an `Unexpected <source> in <place>`
 * said without the source.
 */
export function yamlReason (code: string | undefined, message: string): string {
  const fixed = code === undefined ? undefined : REASONS[code]
  if (fixed !== undefined) return fixed
  const reason = message.split(':')[0]!.trim()
  const place = reason.lastIndexOf(' in ')
  if (reason.startsWith('Unexpected ') && !reason.startsWith('Unexpected , ') && place > 0) return `Unexpected token${reason.slice(place)}`
  return reason
}

/**
 * The YAML document in `text`, its `!env`/`!file` tags as references.
 * Duplicate keys, unknown tags (`!secret`) and every other warning of the
 * yaml package are errors: nothing in a config file is silently read
 * another way than written (D-CONFIG-01).
 */
export function parseYamlConfig (text: string): unknown {
  const doc = parseDocument(text, { customTags: referenceTags, uniqueKeys: true, prettyErrors: false })
  const problem = doc.errors[0] ?? doc.warnings[0]
  // The yaml package appends ` at line …` only with prettyErrors; its reason alone here.
  if (problem !== undefined) throw new ConfigSyntaxError(yamlReason(problem.code, problem.message), problem.pos[0])
  try {
    // D-CONFIG-01: an alias bomb fails here (at most 100 alias expansions).
    return doc.toJS({ maxAliasCount: 100 })
  } catch (err) {
    // No code here (`Unresolved alias (…): Pa55-word`): what follows the `:` is source text.
    throw new ConfigSyntaxError(yamlReason(undefined, (err as Error).message), undefined)
  }
}

/** The JSON value in `text`. */
export function parseJsonConfig (text: string): unknown {
  try {
    return JSON.parse(text)
  } catch (err) {
    const message = (err as Error).message
    // V8 quotes the text around an unexpected token (`…"{"token": abc123…" is not valid JSON`): never shown.
    const reason = message.replace(/, (?:\.\.\.)?".*$/s, '').replace(/ in JSON at position \d+.*$/s, '')
    const position = / at position (\d+)/.exec(message)?.[1]
    const offset = position !== undefined ? Number(position) : /end of JSON input/.test(message) ? text.length : undefined
    throw new ConfigSyntaxError(reason, offset)
  }
}
