import { KEYS_USAGE, keysCommand } from './keys.js'
import { processIo, UsageError, type CliIo } from './io.js'
import { SERVE_USAGE, serveCommand } from './serve.js'
import { USERS_USAGE, usersCommand } from './users.js'

const USAGE = `gatehouse: run a Gatehouse server; manage its API keys and users.

${SERVE_USAGE}
${KEYS_USAGE}
${USERS_USAGE}`

/**
 * Runs the `gatehouse` command line; resolves with the exit code: 0 done,
 * 1 failed (unknown key or user, store error, bad config: any coded error,
 * printed as one line without a stack), 2 wrong usage.
 * D-CLI-01.
 */
export async function main (argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  const [group, ...args] = argv
  if (group === undefined || group === '--help' || group === '-h' || group === 'help') {
    io.stdout.write(USAGE)
    return group === undefined ? 2 : 0
  }
  const usage = group === 'keys' ? KEYS_USAGE : group === 'users' ? USERS_USAGE : group === 'serve' ? SERVE_USAGE : USAGE
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout.write(usage)
    return 0
  }
  try {
    if (group === 'keys') return await keysCommand(args, io)
    if (group === 'users') return await usersCommand(args, io)
    if (group === 'serve') return await serveCommand(args, io)
    throw new UsageError(`unknown command ${JSON.stringify(group)}`)
  } catch (err) {
    const code = (err as { code?: string }).code
    if (err instanceof UsageError || code?.startsWith('ERR_PARSE_ARGS') === true) {
      io.stderr.write(`gatehouse: ${(err as Error).message}\n\n${usage}`)
      return 2
    }
    // A coded error (Gatehouse's, Node's: EADDRINUSE, EACCES…) says what is
    // wrong in its message; an uncoded one is a bug, and keeps its stack.
    // D-CLI-03: no list of known codes to fall behind.
    if (typeof code === 'string' && err instanceof Error) {
      io.stderr.write(`gatehouse: ${err.message}\n`)
      return 1
    }
    throw err
  }
}
