import { test } from 'tap'
import { build, CountingStore, sessionCookie } from './helpers/build.js'
import { fakeDateNow } from '../../../test-helpers/clock.js'

test('logout kills the session everywhere it was used', async (t) => {
  const store = new CountingStore()
  const app = await build({ store })
  t.teardown(() => app.close())
  const id = sessionCookie(await app.inject({ method: 'POST', url: '/login', payload: { identity: 'alice', tags: 'member' } }))!
  const cookie = `session_id=${id}`
  // The same cookie used from two places (two tabs, a copied cookie).
  t.equal((await app.inject({ url: '/private', headers: { cookie } })).statusCode, 200)
  const logout = await app.inject({ method: 'POST', url: '/logout', headers: { cookie } })
  t.equal(logout.statusCode, 200)
  t.match(logout.headers['set-cookie'], /^session_id=; Max-Age=0; Path=\/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Lax$/)
  for (let i = 0; i < 2; i++) {
    t.equal((await app.inject({ url: '/private', headers: { cookie } })).statusCode, 403, 'dead wherever it was used')
  }
})

test('a tampered, unknown or malformed cookie starts nothing and leaks nothing', async (t) => {
  const store = new CountingStore()
  const app = await build({ store })
  t.teardown(() => app.close())
  const id = sessionCookie(await app.inject({ method: 'POST', url: '/login', payload: { identity: 'alice', tags: 'member' } }))!
  store.calls.get = 0
  store.calls.set = 0
  const tampered = id.slice(0, -1) + (id.endsWith('A') ? 'B' : 'A')
  const cases: Array<[string, number]> = [
    [`session_id=${tampered}`, 1],
    [`session_id=${'x'.repeat(43)}`, 1],
    ['session_id=short', 0],
    [`session_id=${id}extra`, 0],
    ['session_id=%00%0d%0a', 0],
    ['session_id=', 0],
    [`other=${id}`, 0]
  ]
  for (const [cookie, lookups] of cases) {
    const before = store.calls.get
    const res = await app.inject({ url: '/whoami', headers: { cookie } })
    t.equal(res.statusCode, 200, cookie)
    t.same(res.json(), { auth: null }, `${cookie}: anonymous`)
    t.notOk(res.headers['set-cookie'], `${cookie}: no cookie set`)
    t.equal(store.calls.get - before, lookups, `${cookie}: ${lookups} lookup(s)`)
    t.notMatch(res.body, new RegExp(id), 'the real id is never echoed')
  }
  t.equal(store.calls.set, 0, 'nothing written')
})

test('a read-only request writes nothing and sets no cookie', async (t) => {
  const store = new CountingStore()
  const app = await build({ store })
  t.teardown(() => app.close())
  const anonymous = await app.inject('/get')
  t.notOk(anonymous.headers['set-cookie'], 'no session is created by reading')
  t.same(store.calls, { get: 0, set: 0, touch: 0, destroy: 0 })
  const id = sessionCookie(await app.inject({ method: 'POST', url: '/put', payload: { value: 42 } }))!
  t.equal(store.calls.set, 1, 'a write creates the session')
  for (let i = 0; i < 3; i++) {
    const read = await app.inject({ url: '/get', headers: { cookie: `session_id=${id}` } })
    t.same(read.json(), { value: 42, exists: true })
    t.notOk(read.headers['set-cookie'])
  }
  t.same(store.calls, { get: 3, set: 1, touch: 0, destroy: 0 }, 'reads only read')
  await app.inject({ method: 'POST', url: '/put', payload: { value: 43 }, headers: { cookie: `session_id=${id}` } })
  t.equal(store.calls.set, 2, 'a change is saved')
})

test('expired sessions are refused: idle and absolute lifetimes', async (t) => {
  // The session plugin and the store read Date.now(): faked and moved by the
  // test, so that "alive" and "expired" do not depend on the machine's speed.
  const clock = fakeDateNow(t)
  const store = new CountingStore()
  const app = await build({ store, idleTtl: 0.3, absoluteTtl: 0.9, touchInterval: 0 })
  t.teardown(() => app.close())
  const login = async () => `session_id=${sessionCookie(await app.inject({ method: 'POST', url: '/login', payload: { identity: 'alice', tags: 'member' } }))!}`
  const status = async (cookie: string) => (await app.inject({ url: '/private', headers: { cookie } })).statusCode
  const idle = await login()
  clock.advance(400)
  t.equal(await status(idle), 403, 'unused for longer than idleTtl')

  const busy = await login()
  for (let elapsed = 100; elapsed <= 800; elapsed += 100) {
    clock.advance(100)
    t.equal(await status(busy), 200, `used every 100 ms: alive at ${elapsed} ms (sliding past the 300 ms idle limit)`)
  }
  clock.advance(150)
  t.equal(await status(busy), 403, 'past the 900 ms absolute lifetime at 950 ms, however busy')
})

test('read-only requests refresh the idle deadline at most once per touchInterval', async (t) => {
  const clock = fakeDateNow(t)
  const store = new CountingStore()
  const app = await build({ store, touchInterval: 0.2 })
  t.teardown(() => app.close())
  const cookie = `session_id=${sessionCookie(await app.inject({ method: 'POST', url: '/put', payload: { value: 1 } }))!}`
  await app.inject({ url: '/get', headers: { cookie } })
  t.equal(store.calls.touch, 0, 'within the interval: no write')
  clock.advance(250)
  const res = await app.inject({ url: '/get', headers: { cookie } })
  t.equal(store.calls.touch, 1, 'after the interval: one touch')
  t.notOk(res.headers['set-cookie'], 'a touch sets no cookie')
  await app.inject({ url: '/get', headers: { cookie } })
  t.equal(store.calls.touch, 1)
})
