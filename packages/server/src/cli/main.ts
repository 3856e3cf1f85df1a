import { KEYS_USAGE, keysCommand } from './keys.js'
import { IMPORT_USAGE, importCommand } from './import.js'
import { nameArgument } from './arguments.js'
import { processIo, UsageError, type CliIo } from './io.js'
import { MIGRATE_USAGE, migrateCommand } from './migrate.js'
import { SERVE_USAGE, serveCommand } from './serve.js'
import { withSecretFiles } from './secret-variables.js'
import { USERS_USAGE, usersCommand } from './users.js'

const USAGE = `gatehouse: run a Gatehouse server; manage its API keys, users and PostgreSQL schema.

${SERVE_USAGE}
${KEYS_USAGE}
${USERS_USAGE}
${MIGRATE_USAGE}
${IMPORT_USAGE}`

const USAGES: Readonly<Record<string, string>> = { keys: KEYS_USAGE, users: USERS_USAGE, serve: SERVE_USAGE, migrate: MIGRATE_USAGE, import: IMPORT_USAGE }

// What the command line reports as one line: an error with a Gatehouse or
// Fastify code (its message names the problem), or a system error (the port
// is taken, a folder cannot be read). Anything else is a bug (D-CLI-08).
function isCoded (err: unknown): err is Error & { code: string } {
  const code = (err as { code?: unknown } | null)?.code
  if (!(err instanceof Error) || typeof code !== 'string') return false
  return code.startsWith('GATEHOUSE_') || code.startsWith('FST_') || typeof (err as { syscall?: unknown }).syscall === 'string'
}

/**
 * Exit code of an internal error (sysexits EX_SOFTWARE): a bug, not a mistake of the caller.
 * D-CLI-08.
 */
export const EXIT_BUG = 70

/**
 * Runs the `gatehouse` command line; resolves with the exit code: 0 done,
 * 1 failed (a coded error, printed as one line: unknown key or user, store
 * or config error, port taken), 2 wrong usage, 70 an uncoded error (a bug:
 * printed with its stack).
 * D-CLI-01.
 */
export async function main (argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  const [group, ...args] = argv
  if (group === undefined || group === '--help' || group === '-h' || group === 'help') {
    io.stdout.write(USAGE)
    return group === undefined ? 2 : 0
  }
  const usage = Object.hasOwn(USAGES, group) ? USAGES[group]! : USAGE
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout.write(usage)
    return 0
  }
  try {
    // $GATEHOUSE_ADMIN_PASSWORD_FILE and the like, read once for every command.
    const command = await withSecretFiles(io)
    if (group === 'keys') return await keysCommand(args, command)
    if (group === 'users') return await usersCommand(args, command)
    if (group === 'serve') return await serveCommand(args, command)
    if (group === 'migrate') return await migrateCommand(args, command)
    if (group === 'import') return await importCommand(args, command)
    throw new UsageError(`unknown command: ${nameArgument({ value: group, position: 1 })}`)
  } catch (err) {
    const code = (err as { code?: unknown } | null)?.code
    if (err instanceof UsageError || (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS'))) {
      io.stderr.write(`gatehouse: ${(err as Error).message}\n\n${usage}`)
      return 2
    }
    // D-CLI-03: no list of known codes to fall behind.
    if (isCoded(err)) {
      // One line: a multi-line message (a route tree) keeps its lines, never a stack.
      io.stderr.write(`gatehouse: ${err.message}\n`)
      return 1
    }
    io.stderr.write(`gatehouse: internal error (a bug in gatehouse; please report it with what follows)\n${err instanceof Error ? err.stack ?? String(err) : String(err)}\n`)
    return EXIT_BUG
  }
}
