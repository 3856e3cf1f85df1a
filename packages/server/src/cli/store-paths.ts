import { join, resolve } from 'node:path'
import type { CliIo } from './io.js'

/**
 * The folder holding keys.json and users.json: `--store`, else $GATEHOUSE_STORE, else ./.gatehouse.
 * D-CLI-01.
 */
export function storeDir (io: CliIo, flag: string | undefined): string {
  return resolve(io.cwd, flag ?? io.env.GATEHOUSE_STORE ?? '.gatehouse')
}

export const keysFile = (dir: string): string => join(dir, 'keys.json')
export const usersFile = (dir: string): string => join(dir, 'users.json')
