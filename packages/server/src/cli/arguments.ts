import { parseArgs, type ParseArgsConfig } from 'node:util'
import { UsageError } from './io.js'
import { SECRET_INPUT, unknownOptionMessage } from './option-hints.js'

/** A word of the command line, and its place after `gatehouse` (1 is the command). */
export interface Argument {
  readonly value: string
  readonly position: number
}

// A stray word may be what the user meant for a flag or a variable: a
// database URL with its password, an API key, a password. An error shows
// it only when it is plainly a word or a path (a mistyped command, a file
// given without its flag); anything else is named by its place. D-CLI-14.
const PLAIN = /^[\w./-]{1,40}$/
const SHAPES: ReadonlyArray<readonly [RegExp, string]> = [
  [/:\/\//, 'a URL'],
  [/@/, 'it holds "@"'],
  [/^gak_/i, 'an API key'],
  [/^(scrypt|sha256)\$/, 'a hash']
]

/** Why an error must not show `value` (`a URL`, `an API key`, …), or undefined when it may. */
export function notShown (value: string): string | undefined {
  for (const [shape, what] of SHAPES) if (shape.test(value)) return what
  // Long runs of letters and digits are how tokens and generated passwords look.
  const random = value.length >= 16 && /\d/.test(value) && /[A-Za-z]/.test(value)
  return PLAIN.test(value) && !random ? undefined : 'it may be a secret'
}

/** How an error names `arg`: `argument 3 "staus"`, or `argument 3 (a URL, not shown)`. */
export function nameArgument (arg: Argument): string {
  const why = notShown(arg.value)
  return `argument ${arg.position} ${why === undefined ? JSON.stringify(arg.value) : `(${why}, not shown)`}`
}

/** How an error quotes a flag's value: `"soon"`, or `(a URL, not shown)`. */
export function quoteValue (value: string): string {
  const why = notShown(value)
  return why === undefined ? JSON.stringify(value) : `(${why}, not shown)`
}

type Options = NonNullable<ParseArgsConfig['options']>
type Parsed<O extends Options> = ReturnType<typeof parseArgs<{ args: string[], options: O, allowPositionals: true, tokens: true }>>

// D-CLI-20: `--expires -5d` gives "-5d" to --expires (parseArgs calls it
// ambiguous): no command has short options, so a word with one dash after an
// option that takes a value is that value, and its own check can say what is
// accepted. A word with two dashes is still an option (`--label --json`).
function joinDashValues (args: readonly string[], options: Options): { args: string[], origin: number[] } {
  const joined: string[] = []
  const origin: number[] = []
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    const next = args[i + 1]
    const option = arg.startsWith('--') && !arg.includes('=') ? options[arg.slice(2)] : undefined
    if (option?.type === 'string' && next !== undefined && /^-[^-]/.test(next)) {
      joined.push(`${arg}=${next}`)
      origin.push(i++)
    } else {
      joined.push(arg)
      origin.push(i)
    }
  }
  return { args: joined, origin }
}

/**
 * `parseArgs` of a command's words (`args`, which come after `before`
 * words of the command line), with positionals that know their place. An
 * unknown option is a usage error saying what to do (the option meant, or,
 * for a secret, where it goes instead: `secretInput`), naming the option
 * only when {@link notShown} allows (Node's message quotes it whole:
 * `--postgres://u:secret@h`).
 */
export function parseCommand<O extends Options> (words: string[], before: number, options: O, secretInput: string = SECRET_INPUT): { values: Parsed<O>['values'], positionals: Argument[] } {
  const { args, origin } = joinDashValues(words, options)
  let parsed: Parsed<O>
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, tokens: true })
  } catch (err) {
    const code = (err as { code?: unknown }).code
    // `--label` last, or before another option (`--label --json`): Node's message asks a question.
    const flag = code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' ? /Option '(--[\w-]+)/.exec((err as Error).message)?.[1] : undefined
    if (flag !== undefined) {
      throw new UsageError(/does not take an argument/.test((err as Error).message)
        ? `${flag} takes no value: give ${flag} alone`
        : `${flag} needs a value: ${flag} <value> (${flag}=<value> for one starting with --)`)
    }
    if (code !== 'ERR_PARSE_ARGS_UNKNOWN_OPTION') throw err
    const { tokens } = parseArgs({ args, options, allowPositionals: true, tokens: true, strict: false })
    const unknown = tokens.find((token) => token.kind === 'option' && !Object.hasOwn(options, token.name))
    if (unknown?.kind !== 'option') throw err
    if (notShown(unknown.rawName) !== undefined) {
      throw new UsageError(`unknown option: ${nameArgument({ value: unknown.rawName, position: before + origin[unknown.index]! + 1 })}`)
    }
    throw new UsageError(unknownOptionMessage(unknown.rawName, unknown.name, Object.keys(options), secretInput))
  }
  const positionals = parsed.tokens.flatMap((token) => token.kind === 'positional' ? [{ value: token.value, position: before + origin[token.index]! + 1 }] : [])
  return { values: parsed.values, positionals }
}

/** Refuses any positional argument (a usage error naming the first). */
export function noArguments (positionals: readonly Argument[]): void {
  if (positionals[0] !== undefined) throw new UsageError(`unexpected ${nameArgument(positionals[0])}`)
}

/** The one positional argument a command takes (`keys revoke <keyId>`), or a usage error saying so. */
export function onlyArgument (positionals: readonly Argument[], name: string): Argument {
  const arg = positionals[0]
  if (positionals.length !== 1 || arg === undefined) throw new UsageError(`give exactly one ${name}`)
  return arg
}
