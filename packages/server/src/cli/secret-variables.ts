import { readEnvironmentValue } from '@fastify-gatehouse/core'
import type { CliIo } from './io.js'

/** The variables that hold secrets, each of which may instead name a file with `<NAME>_FILE`. */
export const SECRET_VARIABLES = ['GATEHOUSE_ADMIN_PASSWORD', 'GATEHOUSE_DATABASE_URL'] as const

/**
 * `io` with each secret variable set from the file its `_FILE` variable
 * names (the convention of container images: Docker and Kubernetes secrets
 * are files), read once before a command runs, so every command sees the
 * value where it reads the variable. A relative path is relative to the
 * working directory. Both forms set, or a file that cannot be read, fails
 * with `GATEHOUSE_CORE_CONFIG_SECRET` naming the variable and the file.
 * D-CONFIG-10.
 */
export async function withSecretFiles (io: CliIo): Promise<CliIo> {
  let env = io.env
  for (const name of SECRET_VARIABLES) {
    if (io.env[`${name}_FILE`] === undefined) continue
    env = { ...env, [name]: await readEnvironmentValue(name, { env: io.env, dir: io.cwd }, `$${name}`) }
  }
  return env === io.env ? io : { ...io, env }
}
