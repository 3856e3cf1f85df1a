import { API_KEY_ID_PATTERN, type ApiKeyStore } from '@fastify-gatehouse/auth'
import { parseExpiry } from './duration.js'
import { nameArgument, noArguments, onlyArgument, parseCommand, type Argument } from './arguments.js'
import { UsageError, type CliIo } from './io.js'
import { reportCreated } from './store-paths.js'
import { openKeyStore, STORE_FLAGS, STORE_FLAGS_USAGE, storeTarget, type StoreFlags } from './store-target.js'
import { tagsFlag } from './tags-flag.js'
import { formatTable } from './table.js'

export const KEYS_USAGE = `Usage:
  gatehouse keys issue --label <name> [--tags a,b] [--expires 30d|ISO date] [--json]
  gatehouse keys list [--json]
  gatehouse keys revoke <keyId>
  gatehouse keys delete <keyId>
${STORE_FLAGS_USAGE}`

const KEY_ID = new RegExp(API_KEY_ID_PATTERN)

function keyIdArgument (positionals: readonly Argument[]): string {
  const keyId = onlyArgument(positionals, 'keyId')
  // A whole key given for its id is not echoed (nameArgument): it is the secret.
  if (!KEY_ID.test(keyId.value)) throw new UsageError(`a keyId is 16 hex characters (the part after gak_), not ${nameArgument(keyId)}`)
  return keyId.value
}

/** `gatehouse keys …`; resolves with the exit code. */
export async function keysCommand (args: string[], io: CliIo): Promise<number> {
  const [action, ...rest] = args
  const { values, positionals } = parseCommand(rest, 2, {
    ...STORE_FLAGS,
    label: { type: 'string' },
    tags: { type: 'string' },
    expires: { type: 'string' },
    json: { type: 'boolean', default: false }
  })
  // Wrong usage is reported before the store is looked at.
  switch (action) {
    case 'issue': {
      noArguments(positionals)
      if (values.label === undefined) throw new UsageError('--label is required')
      const tags = tagsFlag(values.tags)
      const expiresAt = values.expires === undefined ? null : parseExpiry(values.expires, new Date())
      return await withStore(io, values, true, async (store, created) => {
        const { key, record } = await store.issue({ label: values.label!, tags, expiresAt })
        if (created !== undefined) reportCreated(io, created)
        if (values.json) {
          io.stdout.write(JSON.stringify({ key, ...record }) + '\n')
        } else {
          // D-CLI-01: only the key on stdout.
          io.stdout.write(`${key}\n`)
          io.stderr.write(`Issued key ${record.keyId} for ${record.label}${record.expiresAt === null ? '' : `, expires ${record.expiresAt}`}. It is shown only this once.\n`)
        }
        return 0
      })
    }
    case 'list':
      noArguments(positionals)
      return await withStore(io, values, false, async (store) => {
        const keys = await store.list()
        if (values.json) {
          io.stdout.write(JSON.stringify(keys) + '\n')
        } else {
          io.stdout.write(formatTable(['KEY ID', 'LABEL', 'TAGS', 'STATUS', 'EXPIRES', 'LAST USED'], keys.map((k) => [
            k.keyId, k.label, k.tags.join(','),
            !k.enabled ? 'revoked' : k.expiresAt !== null && Date.parse(k.expiresAt) <= Date.now() ? 'expired' : 'active',
            k.expiresAt ?? 'never', k.lastUsedAt ?? '-'
          ])))
        }
        return 0
      })
    case 'revoke':
    case 'delete': {
      const keyId = keyIdArgument(positionals)
      return await withStore(io, values, false, async (store) => {
        const done = action === 'revoke' ? await store.revoke(keyId) : await store.delete(keyId)
        if (!done) {
          io.stderr.write(`gatehouse: no key ${keyId}\n`)
          return 1
        }
        io.stderr.write(`${action === 'revoke' ? 'Revoked' : 'Deleted'} key ${keyId}.\n`)
        return 0
      })
    }
    default:
      throw new UsageError(action === undefined ? 'which keys command?' : `unknown keys command: ${nameArgument({ value: action, position: 2 })}`)
  }
}

// Opens the key store of the command (see storeTarget), runs `use`, closes it.
async function withStore (io: CliIo, flags: StoreFlags, adds: boolean, use: (store: ApiKeyStore, created: string | undefined) => Promise<number>): Promise<number> {
  const target = await storeTarget(io, flags, adds)
  const { store, close } = await openKeyStore(target)
  try {
    return await use(store, target.kind === 'folder' && target.created ? target.dir : undefined)
  } finally {
    await close()
  }
}
