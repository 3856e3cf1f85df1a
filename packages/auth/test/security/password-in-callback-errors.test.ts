import { test } from 'tap'
import Fastify, { type FastifyBaseLogger } from 'fastify'
import pino from 'pino'
import { HttpError, middlewareChain } from '@fastify-gatehouse/core'
import type { AuthOptions, UserStore } from '@fastify-gatehouse/auth'
import { basicHeader, components } from '../helpers/build.js'

// Issue 25, item 3: what a basic.validate or a UserStore throws may quote the
// password in any encoding. Scrubbing the exact string missed its
// JSON-escaped, URL-encoded and base64 `user:pass` forms; now the thrown
// error never reaches a log line or a response at all (D-AUTH-63).

const USER = 'alice'
const PASSWORD = 'pa"ss wörd/+&=%\\é-7'
const FORMS = {
  raw: PASSWORD,
  'JSON-escaped': JSON.stringify(PASSWORD).slice(1, -1),
  'URL-encoded': encodeURIComponent(PASSWORD),
  'form-encoded': new URLSearchParams({ p: PASSWORD }).toString().slice(2),
  'base64 of user:pass': Buffer.from(`${USER}:${PASSWORD}`).toString('base64'),
  'base64 of the password': Buffer.from(PASSWORD).toString('base64')
}

/** Every way a driver or an app has been seen to put the password into an error. */
function leakyErrors (password: string): unknown[] {
  const withFields = new Error(`query failed: ${JSON.stringify({ user: USER, password })}`)
  Object.assign(withFields, { code: 'ECONNRESET', parameters: [USER, password], detail: encodeURIComponent(password) })
  const withCause = new TypeError('lookup failed', { cause: new Error(`Basic ${Buffer.from(`${USER}:${password}`).toString('base64')}`) })
  const withStack = new RangeError('bad')
  withStack.stack = `RangeError: bad\n    at check (${password})`
  const coded = new HttpError(503, 'The store is down', { code: 'APP_DOWN', cause: new Error(password) })
  Object.assign(coded, { values: [password] })
  return [withFields, withCause, withStack, `a string ${password}`, { password }, coded]
}

test('an error thrown by basic.validate or a UserStore never shows the password, in any encoding, in a log line or a response', async (t) => {
  const lines: string[] = []
  let nth = 0
  const thrower = (password: string): never => { throw leakyErrors(password)[nth++ % 6] }
  const sources: Array<[string, AuthOptions]> = [
    ['basic.validate, sync', { basic: { validate: (_identity, password) => thrower(password) } }],
    ['basic.validate, async', { basic: { validate: async (_identity, password) => await Promise.resolve().then(() => thrower(password)) } }],
    ['UserStore.verify', { basic: { users: { verify: async (_identity: string, password: string) => thrower(password), standing: async () => null } as unknown as UserStore } }]
  ]
  for (const [what, options] of sources) {
    const app = Fastify({ loggerInstance: pino({ level: 'trace' }, { write: (l: string) => { lines.push(l) } }) as FastifyBaseLogger })
    t.teardown(() => app.close())
    await middlewareChain(app, { authMiddleware: options as Record<string, unknown> }, { components })
    app.get('/me', { authRule: 'admin' }, async () => ({ ok: true }))
    for (let i = 0; i < 6; i++) {
      const res = await app.inject({ url: '/me', headers: { authorization: basicHeader(USER, PASSWORD), accept: i % 2 === 0 ? 'application/json' : 'text/html' } })
      t.ok(res.statusCode >= 500, `${what} #${i}: ${res.statusCode}`)
      for (const [form, value] of Object.entries(FORMS)) t.notOk(res.body.includes(value), `${what} #${i}: the ${form} password is not in the response`)
    }
  }
  const logged = lines.join('\n')
  t.ok(lines.length >= 18, `${lines.length} log lines`)
  t.match(logged, 'basic.validate threw Error ECONNRESET', 'what is logged: the call, the class and the code')
  t.match(logged, 'UserStore.verify threw HttpError 503 APP_DOWN, caused by Error')
  for (const [form, value] of Object.entries(FORMS)) t.notOk(logged.includes(value), `the ${form} password is in no log line`)
})
