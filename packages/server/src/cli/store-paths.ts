import { access } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { GATEHOUSE_SERVER_NO_STORE } from '../errors.js'
import { UsageError, type CliIo } from './io.js'
import { looksLikeUrl } from './store-config.js'

/**
 * The folder holding keys.json and users.json: `--store`, else $GATEHOUSE_STORE, else ./.gatehouse.
 * D-CLI-01.
 */
export function storeDir (io: CliIo, flag: string | undefined): string {
  const given = flag ?? io.env.GATEHOUSE_STORE
  // Never echoed, never made into folders: a URL may carry a password.
  if (given !== undefined && looksLikeUrl(given)) {
    throw new UsageError(`${flag === undefined ? '$GATEHOUSE_STORE' : '--store'} takes a folder, not a URL; PostgreSQL is --database (or $GATEHOUSE_DATABASE_URL)`)
  }
  return resolve(io.cwd, given ?? '.gatehouse')
}

export const keysFile = (dir: string): string => join(dir, 'keys.json')
export const usersFile = (dir: string): string => join(dir, 'users.json')

const exists = (path: string): Promise<boolean> => access(path).then(() => true, () => false)

/** Whether `dir` holds a store (either file: `keys issue` alone makes one with keys.json only). */
export async function isStore (dir: string): Promise<boolean> {
  return await exists(usersFile(dir)) || await exists(keysFile(dir))
}

/**
 * The store folder of a command. A command that reads or changes what is
 * there refuses a folder that holds no store (`GATEHOUSE_SERVER_NO_STORE`):
 * a typo in `--store` must not look like an empty store. A command that
 * adds (`users add`, `keys issue`) starts one; `created` says whether it
 * must tell the user so once it succeeded.
 * D-CLI-05.
 */
export async function commandStore (io: CliIo, flag: string | undefined, adds: boolean): Promise<{ dir: string, created: boolean }> {
  const dir = storeDir(io, flag)
  if (await isStore(dir)) return { dir, created: false }
  if (!adds) throw new GATEHOUSE_SERVER_NO_STORE(dir)
  return { dir, created: true }
}

/** Says on stderr that a command started a new store at `dir`. */
export function reportCreated (io: CliIo, dir: string): void {
  io.stderr.write(`gatehouse: created a new store at ${dir}\n`)
}
