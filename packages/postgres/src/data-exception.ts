import { GATEHOUSE_AUTH_STORE_INPUT } from '@fastify-gatehouse/auth'

/**
 * Whether `err` is PostgreSQL's data exception (SQLSTATE class 22: a value
 * out of range for its type, a string too long, a character the encoding
 * cannot hold, a raise of a trigger that says so): the input, not the
 * database, is at fault.
 */
export function isDataException (err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code
  return typeof code === 'string' && /^22[0-9A-Z]{3}$/.test(code)
}

/**
 * A data exception as `GATEHOUSE_AUTH_STORE_INPUT` (400) naming `what` (a
 * record: `keys[3] (0123…)`, `user alice`) and the SQLSTATE only, without
 * the driver's error as cause: PostgreSQL's message may quote the value,
 * and the value may be a hash.
 * D-POSTGRES-22.
 */
export function refusedValue (what: string, err: unknown): Error {
  return new GATEHOUSE_AUTH_STORE_INPUT(`${what}: PostgreSQL refused a value (SQLSTATE ${(err as { code: string }).code})`)
}

/** Runs `write`; a data exception rejects as {@link refusedValue} naming `what`, anything else as it was. */
export async function refusingData<T> (what: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write()
  } catch (err) {
    throw isDataException(err) ? refusedValue(what, err) : err
  }
}
