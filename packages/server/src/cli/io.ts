import type { Readable, Writable } from 'node:stream'
import { GATEHOUSE_SERVER_CLI_USAGE } from '../errors.js'

/** Where the CLI reads and writes; the process's by default, buffers in tests. */
export interface CliIo {
  stdin: Readable & { isTTY?: boolean, setRawMode?: (raw: boolean) => unknown }
  stdout: Writable
  stderr: Writable
  env: Readonly<Record<string, string | undefined>>
  cwd: string
}

/** A mistake in how the command was called (`GATEHOUSE_SERVER_CLI_USAGE`): exit code 2, with the usage. */
export const UsageError = GATEHOUSE_SERVER_CLI_USAGE

export const processIo = (): CliIo => ({ stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() })
