// Issue 25, item 3: an error a UserStore throws on POST /_server/login or on
// the account's password change was logged at error level with the password
// in clear. What a store throws may quote the password in any encoding; it
// never reaches a log line or a response now (D-AUTH-63). Fastify's logger at
// trace, the access log with headers and queries.
import { test, type Test } from 'tap'
import type { FastifyBaseLogger } from 'fastify'
import pino from 'pino'
import { HttpError } from '@fastify-gatehouse/core'
import type { UserStore } from '@fastify-gatehouse/auth'
import { AppServer } from '@fastify-gatehouse/server'
import { accountUsers, cookieFrom } from '../helpers/account.js'
import { hangSignal, waitUntil } from '../../../../test-helpers/wait.js'

const secret = (n: number): string => `Qx"7 wörd/+&=%\\é-${n}`
const forms = (password: string): Record<string, string> => ({
  raw: password,
  'JSON-escaped': JSON.stringify(password).slice(1, -1),
  'URL-encoded': encodeURIComponent(password),
  'form-encoded': new URLSearchParams({ p: password }).toString().slice(2),
  'base64 of identity:password': Buffer.from(`alice:${password}`).toString('base64'),
  'base64 of the password': Buffer.from(password).toString('base64')
})

/** The errors a driver or a store of yours may throw about a call it was given `password` in. */
function leakyError (password: string, n: number): unknown {
  const errors = [
    Object.assign(new Error(`query failed: ${JSON.stringify({ identity: 'alice', password })}`), { code: 'ECONNRESET', parameters: ['alice', password], detail: encodeURIComponent(password) }),
    new TypeError('lookup failed', { cause: new Error(`alice:${password} as ${Buffer.from(`alice:${password}`).toString('base64')}`) }),
    Object.assign(new HttpError(503, 'The user store is down', { code: 'APP_DOWN', cause: password }), { values: [password] })
  ]
  return errors[n % errors.length]
}

/**
 * `users`, but `verify`, `setPassword` and `add` throw {@link leakyError}
 * when given a password of `leaking` (the second argument, or its
 * `password`); `thrown()` counts the throws.
 */
function leakyStore (users: UserStore, leaking: ReadonlySet<string>): { store: UserStore, thrown: () => number } {
  let n = 0
  const store = new Proxy(users, {
    get (target, key) {
      const value = Reflect.get(target, key, target) as unknown
      if (key === 'verify' || key === 'setPassword' || key === 'add') {
        return async (identity: string, given: string | { password: string }) => {
          const password = typeof given === 'string' ? given : given.password
          if (leaking.has(password)) throw leakyError(password, n++)
          return await (value as (i: string, g: unknown) => Promise<unknown>).call(target, identity, given)
        }
      }
      return typeof value === 'function' ? value.bind(target) : value
    }
  })
  return { store, thrown: () => n }
}

test('an error a UserStore throws at sign-in or password change never shows the password, in any encoding, in a log line or a response', async (t) => {
  const lines: string[] = []
  const leaking = new Set<string>()
  const { store, thrown } = leakyStore(await accountUsers(), leaking)
  const server = new AppServer({
    logger: pino({ level: 'trace' }, { write: (l: string) => { lines.push(l) } }) as FastifyBaseLogger,
    users: store,
    session: {},
    // Each failure counts as a failed sign-in: room for all of them.
    serverApp: { login: { maxAttempts: 1000 } },
    middleware: { logging: { includeHeaders: true, includeQuery: true } }
  })
  t.teardown(() => server.close())
  const base = await server.serve('127.0.0.1', 0)
  const responses: string[] = []
  const send = async (path: string, body: string, type: string, headers: Record<string, string> = {}): Promise<number> => {
    const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': type, ...headers }, body, redirect: 'manual' })
    responses.push(`${JSON.stringify([...res.headers])}\n${await res.text()}`)
    return res.status
  }
  const json = 'application/json'
  const form = 'application/x-www-form-urlencoded'
  const signIn = await fetch(`${base}/_server/login`, { method: 'POST', headers: { 'content-type': json }, body: JSON.stringify({ identity: 'alice', password: 'alice-pass' }) })
  const cookie = cookieFrom(signIn.headers.getSetCookie())!

  const secrets = [1, 2, 3, 4, 5, 6, 7, 8].map(secret)
  secrets.forEach((s) => leaking.add(s))
  const statuses = [
    // POST /_server/login, JSON and form (the page without JavaScript).
    await send('/_server/login', JSON.stringify({ identity: 'alice', password: secrets[0] }), json),
    await send('/_server/login', new URLSearchParams({ identity: 'alice', password: secrets[1]!, next: '/' }).toString(), form, { accept: 'text/html' }),
    await send('/_server/login', JSON.stringify({ identity: 'alice', password: secrets[2] }), json),
    // The password change: the current password (verify), the new one (setPassword), JSON and form.
    await send('/_server/account/password', JSON.stringify({ current_password: secrets[3], new_password: 'lilac-kestrel-2931' }), json, { cookie }),
    await send('/_server/account/password', new URLSearchParams({ current_password: secrets[4]!, new_password: 'lilac-kestrel-2931' }).toString(), form, { cookie, accept: 'text/html' }),
    await send('/_server/account/password', JSON.stringify({ current_password: 'alice-pass', new_password: secrets[5] }), json, { cookie }),
    await send('/_server/account/password', new URLSearchParams({ current_password: 'alice-pass', new_password: secrets[6]! }).toString(), form, { cookie, accept: 'text/html' }),
    await send('/_server/account/password', JSON.stringify({ current_password: 'alice-pass', new_password: secrets[7] }), json, { cookie })
  ]
  t.ok(statuses.every((s) => s >= 500), `each call failed in the store: ${statuses.join(' ')}`)
  t.ok(thrown() >= 8, `the store threw ${thrown()} times`)
  const logged = lines.join('\n')
  t.match(logged, 'UserStore.verify threw Error ECONNRESET', 'what is logged: the call, the class and the code')
  t.match(logged, /UserStore\.setPassword threw (TypeError|HttpError 503 APP_DOWN|Error ECONNRESET)/)
  const answered = responses.join('\n')
  for (const password of secrets) {
    for (const [form, value] of Object.entries(forms(password))) {
      t.notOk(logged.includes(value), `${password.slice(-2)}: the ${form} password is in no log line`)
      t.notOk(answered.includes(value), `${password.slice(-2)}: the ${form} password is in no response`)
    }
  }
})

// Issue 25, review: the admin API called the store directly, so an error of
// users.add or users.setPassword was logged with its message and stack, the
// password in them; and a hung store held the request for ever. D-SERVER-56.
const ADMIN = 'operator-key-0123'

async function adminServer (t: Test, store: UserStore, lines: string[], callbackTimeout?: number): Promise<{ base: string, cookie: string }> {
  const server = new AppServer({
    logger: pino({ level: 'trace' }, { write: (l: string) => { lines.push(l) } }) as FastifyBaseLogger,
    users: store,
    adminPassword: ADMIN,
    session: {},
    serverApp: { login: { maxAttempts: 1000, ...(callbackTimeout === undefined ? {} : { callbackTimeout }) } },
    middleware: { logging: { includeHeaders: true, includeQuery: true } }
  })
  t.teardown(() => server.close())
  const base = await server.serve('127.0.0.1', 0)
  const signIn = await fetch(`${base}/_server/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ identity: 'admin', password: ADMIN }), signal: hangSignal() })
  t.equal(signIn.status, 200, 'the admin signs in')
  return { base, cookie: cookieFrom(signIn.headers.getSetCookie())! }
}

test("an error the user store throws on the admin API's add or set-password never shows the password, in any encoding, in a log line or a response", async (t) => {
  const lines: string[] = []
  const leaking = new Set<string>()
  const users = await accountUsers()
  const { store, thrown } = leakyStore(users, leaking)
  const { base, cookie } = await adminServer(t, store, lines)
  const responses: string[] = []
  const send = async (method: string, path: string, body: object): Promise<number> => {
    const res = await fetch(`${base}${path}`, { method, headers: { 'content-type': 'application/json', cookie }, body: JSON.stringify(body), signal: hangSignal() })
    responses.push(`${JSON.stringify([...res.headers])}\n${await res.text()}`)
    return res.status
  }
  const secrets = [11, 12, 13, 14, 15, 16].map(secret)
  secrets.forEach((s) => leaking.add(s))
  const statuses = [
    await send('POST', '/_server/users', { identity: 'carol', password: secrets[0] }),
    await send('POST', '/_server/users', { identity: 'carol', password: secrets[1] }),
    await send('POST', '/_server/users', { identity: 'carol', password: secrets[2] }),
    await send('PATCH', '/_server/users/bob', { password: secrets[3] }),
    await send('PATCH', '/_server/users/bob', { password: secrets[4] }),
    await send('PATCH', '/_server/users/bob', { password: secrets[5], tags: 'member' })
  ]
  t.same(statuses, [500, 500, 503, 500, 500, 503], 'each call failed in the store: 500, or the 503 the HttpError carried')
  t.equal(thrown(), 6, 'the store threw six times')
  const logged = lines.join('\n')
  t.match(logged, 'UserStore.add threw Error ECONNRESET', 'what is logged: the call, the class and the code')
  t.match(logged, 'UserStore.setPassword threw Error ECONNRESET')
  t.match(responses[2], '"code":"APP_DOWN"', "the HttpError's status and code are kept")
  t.notMatch(responses[2], 'The user store is down', 'but not its message: a store may quote what it was given')
  const answered = responses.join('\n')
  for (const password of secrets) {
    for (const [form, value] of Object.entries(forms(password))) {
      t.notOk(logged.includes(value), `${password.slice(-3)}: the ${form} password is in no log line`)
      t.notOk(answered.includes(value), `${password.slice(-3)}: the ${form} password is in no response`)
    }
  }
  t.equal(await users.get('carol'), null, 'no user was added')
  t.ok(await users.verify('bob', 'bob-pass-1'), "bob's password is unchanged")
})

test('a user store that never answers the admin API: 503 GATEHOUSE_AUTH_CALLBACK_TIMEOUT within callbackTimeout, and the late answer is ignored', async (t) => {
  const lines: string[] = []
  const users = await accountUsers()
  let hang = false
  const late: Array<() => void> = []
  const store = new Proxy(users, {
    get (target, key) {
      const value = Reflect.get(target, key, target) as unknown
      if (typeof value !== 'function') return value
      return (...args: unknown[]) => {
        if (!hang || key === 'verify' || key === 'standing') return (value as (...a: unknown[]) => unknown).apply(target, args)
        // Answers only when the test ends: long after the limit.
        return new Promise((resolve) => { late.push(() => { resolve((value as (...a: unknown[]) => unknown).apply(target, args)) }) })
      }
    }
  }) as UserStore
  const { base, cookie } = await adminServer(t, store, lines, 0.2)
  hang = true
  const calls: Array<[string, string, object | undefined]> = [
    ['POST', '/_server/users', { identity: 'carol', password: 'lilac-kestrel-2931' }],
    ['PATCH', '/_server/users/bob', { password: 'lilac-kestrel-2931' }],
    ['GET', '/_server/users', undefined],
    ['DELETE', '/_server/users/bob', undefined]
  ]
  const answers = await Promise.all(calls.map(async ([method, path, body]) => {
    const started = Date.now()
    const res = await fetch(`${base}${path}`, { method, headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), cookie }, ...(body === undefined ? {} : { body: JSON.stringify(body) }), signal: hangSignal() })
    return { status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.json() as { code?: string }, ms: Date.now() - started }
  }))
  for (const [i, answer] of answers.entries()) {
    t.equal(answer.status, 503, `${calls[i]![0]} ${calls[i]![1]}: 503`)
    t.equal(answer.body.code, 'GATEHOUSE_AUTH_CALLBACK_TIMEOUT')
    t.equal(answer.retryAfter, '5', 'with Retry-After')
    t.ok(answer.ms >= 150, `not before the limit (${answer.ms} ms)`)
  }
  hang = false
  for (const answer of late) answer()
  // The late add lands in the store; its answer goes nowhere, and no rejection is left unhandled (tap fails on one).
  await waitUntil(async () => await users.get('carol') !== null)
  t.pass('the late answers settled')
  t.notOk(lines.join('\n').includes('lilac-kestrel-2931'), 'the password is in no log line')
})
