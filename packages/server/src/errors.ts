import createError from '@fastify/error'

// Codes of this package (the pattern of packages/core/src/errors.ts):
// boot-time misconfiguration is a TypeError subclass, what the command line
// cannot do is an Error; each has a stable code, so a caller (and the CLI's
// top-level handler, which prints any coded error as one line) can tell
// them apart without matching on messages. Listed in docs/error-codes.md.

/** An AppServer option (or the environment variable standing for it) is unusable; the message names it first. */
export const GATEHOUSE_SERVER_INVALID_OPTIONS = createError<[string, string]>(
  'GATEHOUSE_SERVER_INVALID_OPTIONS', '%s: %s', 500, TypeError)

/**
 * A CLI command that reads a store (`list`, `passwd`, `revoke`, …) was
 * pointed at a folder holding neither users.json nor keys.json: a typo in
 * `--store` must not read as an empty store. The message names the folder.
 */
export const GATEHOUSE_SERVER_NO_STORE = createError<[string]>(
  'GATEHOUSE_SERVER_NO_STORE',
  'no store at %s (neither users.json nor keys.json is there); check --store or $GATEHOUSE_STORE (`users add` and `keys issue` create a store)', 500, Error)
