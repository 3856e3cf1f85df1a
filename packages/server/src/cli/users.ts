import { parseArgs } from 'node:util'
import { FileUserStore } from '@fastify-gatehouse/auth'
import { onlyArgument, UsageError, type CliIo } from './io.js'
import { readNewPassword } from './password-input.js'
import { storeDir, usersFile } from './store-paths.js'
import { tagsFlag } from './tags-flag.js'
import { formatTable } from './table.js'

export const USERS_USAGE = `Usage:
  gatehouse users add <identity> [--tags a,b]     (password from the prompt, or the first line of stdin)
  gatehouse users list [--json]
  gatehouse users passwd <identity>               (password as for add)
  gatehouse users disable <identity>
  gatehouse users enable <identity>
  gatehouse users delete <identity>
Options: --store <dir> (default: $GATEHOUSE_STORE or ./.gatehouse)
`

/** `gatehouse users …`; resolves with the exit code. */
export async function usersCommand (args: string[], io: CliIo): Promise<number> {
  const [action, ...rest] = args
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      store: { type: 'string' },
      tags: { type: 'string' },
      json: { type: 'boolean', default: false }
    }
  })
  const store = await FileUserStore.open(usersFile(storeDir(io, values.store)))
  const missing = (identity: string): number => {
    io.stderr.write(`gatehouse: no user ${identity}\n`)
    return 1
  }
  switch (action) {
    case 'add': {
      const identity = onlyArgument(positionals, 'identity')
      const tags = tagsFlag(values.tags)
      const user = await store.add(identity, { password: await readNewPassword(io), tags })
      io.stderr.write(`Added ${user.identity}${user.tags.length > 0 ? ` with tags ${user.tags.join(',')}` : ''}.\n`)
      return 0
    }
    case 'list': {
      const users = await store.list()
      io.stdout.write(values.json
        ? JSON.stringify(users) + '\n'
        : formatTable(['IDENTITY', 'TAGS', 'STATUS', 'UPDATED'], users.map((u) => [u.identity, u.tags.join(','), u.enabled ? 'enabled' : 'disabled', u.updatedAt])))
      return 0
    }
    case 'passwd': {
      const identity = onlyArgument(positionals, 'identity')
      if (await store.get(identity) === null) return missing(identity)
      if (!await store.setPassword(identity, await readNewPassword(io))) return missing(identity)
      io.stderr.write(`Password of ${identity} changed.\n`)
      return 0
    }
    case 'disable':
    case 'enable': {
      const identity = onlyArgument(positionals, 'identity')
      if (!await store.setEnabled(identity, action === 'enable')) return missing(identity)
      io.stderr.write(`${action === 'enable' ? 'Enabled' : 'Disabled'} ${identity}.\n`)
      return 0
    }
    case 'delete': {
      const identity = onlyArgument(positionals, 'identity')
      if (!await store.delete(identity)) return missing(identity)
      io.stderr.write(`Deleted ${identity}.\n`)
      return 0
    }
    default:
      throw new UsageError(action === undefined ? 'which users command?' : `unknown users command ${JSON.stringify(action)}`)
  }
}
