// Issue 15, item 0: with one LRU cap shared by both kinds, unauthenticated
// OIDC starts (each an anonymous session) signed out every signed-in user
// who was idle meanwhile. Anonymous sessions now have a budget of their own.
import { test } from 'tap'
import { MemorySessionStore } from '@fastify-gatehouse/session'
import { build } from '../helpers/build.js'
import { hangSignal } from '../../../../test-helpers/wait.js'

const json = { 'content-type': 'application/json' }

test('a flood of anonymous sessions over real sockets, racing logins, writes and logouts, signs no one out', async (t) => {
  const store = new MemorySessionStore({ maxAnonymous: 8, maxSignedIn: 40 })
  const app = await build({ store })
  t.teardown(() => app.close())
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  const call = async (path: string, init: { method?: string, cookie?: string, body?: unknown } = {}): Promise<Response> =>
    await fetch(`${base}${path}`, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers: { ...(init.body === undefined ? {} : json), ...(init.cookie === undefined ? {} : { cookie: init.cookie }) },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      signal: hangSignal()
    })
  const cookieOf = (res: Response): string => res.headers.getSetCookie()[0]!.split(';')[0]!

  const users = Array.from({ length: 30 }, (_v, i) => `user${i}`)
  const logins = await Promise.all(users.map(async (identity) => await call('/login', { body: { identity, tags: 'member' } })))
  t.same(logins.map((res) => res.status), users.map(() => 200), 'dozens of parallel sign-ins')
  const cookies = logins.map(cookieOf)
  t.same(store.sizes, { anonymous: 0, signedIn: 30 })

  const leaving = users.slice(0, 15)
  const staying = users.slice(15)
  // At once: 300 anonymous visitors each start a session (10 times over
  // both budgets together), half the users log out, the other half write.
  const flood = Array.from({ length: 300 }, async (_v, i) => await call('/put', { body: { value: `visitor${i}` } }))
  const logouts = leaving.map(async (_u, i) => await call('/logout', { method: 'POST', cookie: cookies[i] }))
  const writes = staying.map(async (identity, i) => await call('/put', { cookie: cookies[15 + i], body: { value: `${identity}'s cart` } }))
  const [flooded, out, written] = await Promise.all([Promise.all(flood), Promise.all(logouts), Promise.all(writes)])
  t.ok(flooded.every((res) => res.status === 200), 'every visitor got a session')
  t.ok(flooded.every((res) => res.headers.getSetCookie().length === 1), 'and a cookie')
  t.same(out.map((res) => res.status), leaving.map(() => 200))
  t.same(written.map((res) => res.status), staying.map(() => 200))

  t.equal(store.sizes.anonymous, 8, 'the anonymous budget holds')
  t.equal(store.sizes.signedIn, 15, 'the users who stayed are all there; those who left are not')
  for (const [i, identity] of staying.entries()) {
    const res = await call('/get', { cookie: cookies[15 + i] })
    t.same(await res.json(), { value: `${identity}'s cart`, exists: true }, `${identity} kept the session and the write`)
    t.same(await (await call('/whoami', { cookie: cookies[15 + i] })).json(), { auth: { identity, tags: ['member'], backend: 'session' } })
  }
  for (const [i] of leaving.entries()) {
    t.same(await (await call('/whoami', { cookie: cookies[i] })).json(), { auth: null }, `${leaving[i]!} is signed out`)
  }
  const ended = staying.map((identity) => store.destroyAllFor(identity))
  t.same(ended, staying.map(() => 1), 'the identity index is exact after the race')
  t.same(leaving.map((identity) => store.destroyAllFor(identity)), leaving.map(() => 0))
  t.same(store.sizes, { anonymous: 8, signedIn: 0 })
})
