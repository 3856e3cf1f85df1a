import { checkIdentity, checkPassword, hashPassword, passwordPolicyDefaults, passwordProblem, type ResolvedPasswordPolicy, type UserStore } from '@fastify-gatehouse/auth'
import { weakPassword } from '../errors.js'
import { nameArgument, noArguments, onlyArgument, parseCommand, type Argument } from './arguments.js'
import { UsageError, type CliIo } from './io.js'
import { PASSWORD_INPUT } from './option-hints.js'
import { readNewPassword } from './password-input.js'
import { endSessionsAfterChange, listUserSessions, signOutUser } from './sessions.js'
import { passwordStoreCall } from './store-call.js'
import { reportCreated } from './store-paths.js'
import { openUserStore, STORE_FLAGS, STORE_FLAGS_USAGE, storeTarget, type StoreFlags } from './store-target.js'
import { tagsFlag } from './tags-flag.js'
import { formatTable } from './table.js'

export const USERS_USAGE = `Usage:
  gatehouse users add <identity> [--tags a,b]     (password from the prompt, or the first line of stdin)
  gatehouse users list [--json]
  gatehouse users passwd <identity>               (password as for add)
  gatehouse users disable <identity>
  gatehouse users enable <identity>
  gatehouse users delete <identity>
  gatehouse users sessions <identity> [--json]    (the identity's sessions in the servers' shared session store)
  gatehouse users signout <identity>              (ends them all, on every server sharing the store)
  gatehouse users hash                            (prints a password_hash for a config file; password as for add; no store)
${STORE_FLAGS_USAGE}New passwords follow the password policy: that of --config's server_app.password_policy,
else at least 8 characters, not a common password, not containing the identity.
passwd, disable and delete also end the user's sessions when the flags name the servers'
shared session store (--config's middleware.session.store, or PostgreSQL); sessions and signout need it.
`

/**
 * The new password of `identity`, read as D-CLI-01 says, refused with
 * `GATEHOUSE_SERVER_WEAK_PASSWORD` (exit 1, the rule named) when the policy
 * refuses it.
 */
async function readPolicyPassword (io: CliIo, identity: string, policy: ResolvedPasswordPolicy): Promise<string> {
  const password = await readNewPassword(io)
  const problem = passwordProblem(password, identity, policy)
  if (problem !== null) throw weakPassword(problem)
  return password
}

// Checked before any store or prompt: a word that cannot be an identity (a
// colon: a database URL typed in its place) fails without being echoed,
// where "no user <it>" would have shown it (D-CLI-14).
function identityArgument (positionals: readonly Argument[]): string {
  return checkIdentity(onlyArgument(positionals, 'identity').value)
}

// `users add bob hunter2`: the second word is likely the password; it is
// refused without being shown, saying how a password is given. D-CLI-19.
function newPasswordIdentity (action: string, positionals: readonly Argument[]): string {
  if (positionals.length > 1) throw new UsageError(`users ${action} takes one identity, and never a password on the command line, where shell history and ps show it; ${PASSWORD_INPUT}`)
  return identityArgument(positionals)
}

/** `gatehouse users …`; resolves with the exit code. */
export async function usersCommand (args: string[], io: CliIo): Promise<number> {
  const [action, ...rest] = args
  const { values, positionals } = parseCommand(rest, 2, {
    ...STORE_FLAGS,
    tags: { type: 'string' },
    json: { type: 'boolean', default: false }
  }, PASSWORD_INPUT)
  const missing = (identity: string): number => {
    io.stderr.write(`gatehouse: no user ${identity}\n`)
    return 1
  }
  // Wrong usage is reported before the store is looked at.
  switch (action) {
    case 'add': {
      const identity = newPasswordIdentity(action, positionals)
      const tags = tagsFlag(values.tags)
      return await withStore(io, values, true, async (store, created, policy) => {
        const password = await readPolicyPassword(io, identity, policy)
        const user = await passwordStoreCall('UserStore.add', async () => await store.add(identity, { password, tags }))
        if (created !== undefined) reportCreated(io, created)
        io.stderr.write(`Added ${user.identity}${user.tags.length > 0 ? ` with tags ${user.tags.join(',')}` : ''}.\n`)
        return 0
      })
    }
    case 'list':
      noArguments(positionals)
      return await withStore(io, values, false, async (store) => {
        const users = await store.list()
        io.stdout.write(values.json
          ? JSON.stringify(users) + '\n'
          : formatTable(['IDENTITY', 'TAGS', 'STATUS', 'UPDATED'], users.map((u) => [u.identity, u.tags.join(','), u.enabled ? 'enabled' : 'disabled', u.updatedAt])))
        return 0
      })
    case 'passwd': {
      const identity = newPasswordIdentity(action, positionals)
      const code = await withStore(io, values, false, async (store, _created, policy) => {
        if (await store.get(identity) === null) return missing(identity)
        const password = await readPolicyPassword(io, identity, policy)
        if (!await passwordStoreCall('UserStore.setPassword', async () => await store.setPassword(identity, password))) return missing(identity)
        io.stderr.write(`Password of ${identity} changed.\n`)
        return 0
      })
      if (code === 0) await endSessionsAfterChange(io, values, identity)
      return code
    }
    case 'disable':
    case 'enable': {
      const identity = identityArgument(positionals)
      const code = await withStore(io, values, false, async (store) => {
        if (!await store.setEnabled(identity, action === 'enable')) return missing(identity)
        io.stderr.write(`${action === 'enable' ? 'Enabled' : 'Disabled'} ${identity}.\n`)
        return 0
      })
      if (code === 0 && action === 'disable') await endSessionsAfterChange(io, values, identity)
      return code
    }
    case 'delete': {
      const identity = identityArgument(positionals)
      const code = await withStore(io, values, false, async (store) => {
        if (!await store.delete(identity)) return missing(identity)
        io.stderr.write(`Deleted ${identity}.\n`)
        return 0
      })
      // API keys labelled with the identity are separate principals: they stay.
      if (code === 0) await endSessionsAfterChange(io, values, identity)
      return code
    }
    case 'sessions': {
      const identity = identityArgument(positionals)
      if (values.tags !== undefined) throw new UsageError('users sessions takes no --tags')
      return await listUserSessions(io, values, identity, values.json)
    }
    case 'signout': {
      const identity = identityArgument(positionals)
      if (values.tags !== undefined || values.json) throw new UsageError('users signout takes no --tags or --json')
      return await signOutUser(io, values, identity)
    }
    case 'hash': {
      if (positionals.length > 0) throw new UsageError(`users hash takes no argument, and never a password on the command line, where shell history and ps show it; ${PASSWORD_INPUT}`)
      if ((['store', 'database', 'config', 'schema', 'table-prefix'] as const).some((flag) => values[flag] !== undefined) || values.tags !== undefined || values.json) throw new UsageError('users hash takes no option: it only prints a hash')
      // The policy of `users add` (its defaults; no identity is known here), so
      // a hash in a config file could have been a stored user's (D-CLI-07, D-CLI-15).
      const hash = await hashPassword(checkPassword(await readPolicyPassword(io, '', passwordPolicyDefaults)))
      io.stdout.write(`${hash}\n`)
      return 0
    }
    default:
      throw new UsageError(action === undefined ? 'which users command?' : `unknown users command: ${nameArgument({ value: action, position: 2 })}`)
  }
}

// Opens the user store of the command (see storeTarget), runs `use`, closes it.
async function withStore (io: CliIo, flags: StoreFlags, adds: boolean,
  use: (store: UserStore, created: string | undefined, policy: ResolvedPasswordPolicy) => Promise<number>): Promise<number> {
  const target = await storeTarget(io, flags, adds)
  const { store, close } = await openUserStore(target)
  try {
    return await use(store, target.kind === 'folder' && target.created ? target.dir : undefined, target.passwordPolicy)
  } finally {
    await close()
  }
}
