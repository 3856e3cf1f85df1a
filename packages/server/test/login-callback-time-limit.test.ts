// Issue 25, items 2 and 7: POST /_server/login and the account's password
// change call the user store and the lockout store; each call has
// serverApp.login.callbackTimeout to answer (503
// GATEHOUSE_AUTH_CALLBACK_TIMEOUT past it), and a lockout store that fails
// after the password check is a coded 503, not a bare 500. Two instances over
// real sockets share one user store, one lockout store and one session store. The limit is small
// (1 s, room for a real scrypt check on a loaded machine): the tests assert the answers and that nothing stays held, never speed.
import { test, type Test } from 'tap'
import type { FastifyBaseLogger } from 'fastify'
import pino from 'pino'
import { MemoryLockoutStore, type LockoutStore, type UserStore } from '@fastify-gatehouse/auth'
import { MemorySessionStore } from '@fastify-gatehouse/session'
import { AppServer } from '@fastify-gatehouse/server'
import { readConfig } from '../src/cli/config-file.js'
import type { CliIo } from '../src/cli/io.js'
import { faulty, lockoutFaultCases, type Faults } from '../../../test-helpers/faulty.js'
import { waitUntil } from '../../../test-helpers/wait.js'
import { accountUsers, call, cookieFrom, NEW_PASSWORD } from './helpers/account.js'

const LIMIT = 1
interface Instance { base: string, lines: string[] }

async function pair (t: Test, users: UserStore, lockout: LockoutStore): Promise<[Instance, Instance]> {
  const instances: Instance[] = []
  const sessions = new MemorySessionStore()
  for (let i = 0; i < 2; i++) {
    const lines: string[] = []
    const server = new AppServer({
      logger: pino({ level: 'trace' }, { write: (l: string) => { lines.push(l) } }) as FastifyBaseLogger,
      users,
      session: { store: sessions },
      serverApp: { login: { callbackTimeout: LIMIT, store: lockout, maxAttempts: 1000 } }
    })
    t.teardown(() => server.close())
    instances.push({ base: await server.serve('127.0.0.1', 0), lines })
  }
  return instances as [Instance, Instance]
}

const login = async (at: Instance, identity: string, password: string, signal?: AbortSignal): Promise<Response> =>
  await fetch(`${at.base}/_server/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ identity, password }), ...(signal === undefined ? {} : { signal }) })

async function answer (res: Response): Promise<[number, unknown, string | null]> {
  return [res.status, ((await res.json()) as { code?: unknown }).code, res.headers.get('retry-after')]
}

test('20 hung UserStore.verify calls on each of two instances: 503 at the limit, clients gone or not; then fresh sign-ins pass on both', async (t) => {
  const faults: Faults = {}
  const users = faulty(await accountUsers(), faults)
  const [a, b] = await pair(t, users, new MemoryLockoutStore())
  faults.verify = 'hang'
  const waited = await Promise.all(Array.from({ length: 20 }, async (_, i) => await answer(await login(a, `user${i}`, `hung-password-${i}`))))
  t.same([...new Set(waited.map((r) => JSON.stringify(r)))], [JSON.stringify([503, 'GATEHOUSE_AUTH_CALLBACK_TIMEOUT', '5'])], 'each hung check answers 503 with its code')
  const controllers = Array.from({ length: 20 }, () => new AbortController())
  const gone = controllers.map(async (c, i) => await login(b, `user${i}`, `hung-password-${i}`, c.signal).then(() => 'answered', () => 'gone'))
  await waitUntil(() => b.lines.filter((l) => l.includes('"incoming request"')).length >= 20, { what: '20 sign-ins on B' })
  for (const c of controllers) c.abort()
  // How many left before their answer depends on the machine's speed: not asserted.
  t.comment(`${(await Promise.all(gone)).filter((r) => r === 'gone').length} of 20 clients left before their answer`)
  await waitUntil(() => b.lines.filter((l) => l.includes('GATEHOUSE_AUTH_CALLBACK_TIMEOUT')).length >= 20, { what: 'the abandoned checks given up on' })
  delete faults.verify
  for (const at of [a, b]) {
    const fresh = await Promise.all(Array.from({ length: 16 }, async () => (await login(at, 'alice', 'alice-pass')).status))
    t.same([...new Set(fresh)], [200], 'fresh sign-ins pass: nothing held')
  }
  t.match(a.lines.join('\n'), 'UserStore.verify gave no answer within 1000 ms', 'the log names the call')
})

test('the lockout store: hung or failing, before or after the password check, a coded 503 on both instances; then sign-ins pass', async (t) => {
  const faults: Faults = {}
  const [a, b] = await pair(t, await accountUsers(), faulty(new MemoryLockoutStore(), faults))
  const cases = lockoutFaultCases('alice-pass', 'wrong-pass')
  for (const [what, fault, password, code] of cases) {
    for (const at of [a, b]) {
      Object.assign(faults, fault)
      t.same(await answer(await login(at, 'alice', password)), [503, code, '5'], what)
      for (const key of Object.keys(faults)) delete faults[key]
      t.equal((await login(at, 'alice', 'alice-pass')).status, 200, `${what}: then a sign-in passes`)
    }
  }
  const logged = [...a.lines, ...b.lines].join('\n')
  t.match(logged, 'LockoutStore.reset threw Error')
  t.notMatch(logged, 'store down at', 'never the thrown message (it quotes the keys)')
})

test('the password change: a hung verify of the current password or setPassword is a 503 at the limit', async (t) => {
  const faults: Faults = {}
  const [a, b] = await pair(t, faulty(await accountUsers(), faults), new MemoryLockoutStore())
  for (const [at, method] of [[a, 'verify'], [b, 'setPassword']] as const) {
    const cookie = cookieFrom((await login(at, 'alice', 'alice-pass')).headers.getSetCookie())!
    faults[method] = 'hang'
    const res = await call(at.base, 'POST', '/_server/account/password', { cookie }, { current_password: 'alice-pass', new_password: NEW_PASSWORD })
    delete faults[method]
    t.same(await answer(res), [503, 'GATEHOUSE_AUTH_CALLBACK_TIMEOUT', '5'], `${method} hangs`)
    t.match(at.lines.join('\n'), `UserStore.${method} gave no answer within 1000 ms`)
  }
  t.equal((await login(a, 'alice', 'alice-pass')).status, 200, 'the hung setPassword never landed: the password is unchanged')
})

test('a password session whose UserStore.standing hangs: 503 at the limit on both instances, then the session works again', async (t) => {
  const faults: Faults = {}
  const [a, b] = await pair(t, faulty(await accountUsers(), faults), new MemoryLockoutStore())
  const cookie = cookieFrom((await login(a, 'alice', 'alice-pass')).headers.getSetCookie())!
  faults.standing = 'hang'
  for (const at of [a, b]) {
    const res = await call(at.base, 'GET', '/_server/account/me', { cookie })
    t.same(await answer(res), [503, 'GATEHOUSE_SESSION_CHECK_UNAVAILABLE', '5'], 'the session component\'s 503')
    t.match(at.lines.join('\n'), 'UserStore.standing gave no answer within 1000 ms', 'caused by the limit')
  }
  delete faults.standing
  t.equal((await call(b.base, 'GET', '/_server/account/me', { cookie })).status, 200, 'the session is still signed in')
})

test('a config file sets both limits: server_app.login.callback_timeout and auth_middleware.callback_timeout; out of bounds is a boot error naming the key', async (t) => {
  const dir = t.testdir({
    'ok.yaml': 'auth_middleware:\n  callback_timeout: 0.5\nserver_app:\n  login: { callback_timeout: 2.5 }\n',
    'zero.yaml': 'server_app:\n  login: { callback_timeout: 0 }\n'
  })
  const io = { cwd: dir } as CliIo
  const { config } = await readConfig(io, 'ok.yaml')
  t.equal((config.serverApp?.login as { callbackTimeout?: number } | undefined)?.callbackTimeout, 2.5)
  t.equal((config.authMiddleware as { callbackTimeout?: number } | undefined)?.callbackTimeout, 0.5)
  await t.rejects(readConfig(io, 'zero.yaml'), { message: /server_app\.login\.callback_timeout: expected number to be greater or equal to 0\.001/ })
})
