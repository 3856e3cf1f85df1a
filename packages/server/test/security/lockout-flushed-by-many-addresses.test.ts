// Issue 25, item 9: an attacker with many addresses could flush the memory
// lockout store's LRU and lift a lock, and each IPv6 address of one client
// counted on its own. Over real sockets: locked keys are never evicted
// (D-LOCKOUT-10), and the login counts an IPv6 client by its /64 (D-LOCKOUT-11).
import { test, type Test } from 'tap'
import { MemoryLockoutStore, MemoryUserStore } from '@fastify-gatehouse/auth'
import { AppServer } from '@fastify-gatehouse/server'
import { hangSignal } from '../../../../test-helpers/wait.js'

const FAST = { N: 1024, r: 8, p: 1 }

async function start (t: Test, store: MemoryLockoutStore): Promise<string> {
  const users = new MemoryUserStore({ scrypt: FAST })
  await users.add('alice', { password: 'alice-pass' })
  // The client address from X-Forwarded-For, as behind a balancer.
  const server = new AppServer({ logger: false, users, trustProxy: true, serverApp: { login: { maxAttempts: 5, backoff: 60, store } } })
  t.teardown(() => server.close())
  return await server.serve('127.0.0.1', 0)
}

async function login (base: string, identity: string, password: string, from: string): Promise<Response> {
  return await fetch(`${base}/_server/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': from },
    body: JSON.stringify({ identity, password }),
    signal: hangSignal()
  })
}

test('a locked identity stays locked after failed logins from 300 new addresses fill the store (real socket)', async (t) => {
  const base = await start(t, new MemoryLockoutStore(100))
  for (let i = 0; i < 5; i++) t.equal((await login(base, 'alice', `guess-${i}`, `198.51.100.${i}`)).status, 401)
  t.equal((await login(base, 'alice', 'alice-pass', '198.51.100.9')).status, 429, 'alice is locked')
  const flood: number[] = []
  for (let i = 0; i < 300; i++) flood.push((await login(base, `nobody-${i}`, 'guess', `203.0.${i >> 8}.${i & 255}`)).status)
  t.same(new Set(flood), new Set([401]), '300 failed logins from 300 new addresses (600 new keys in a store of 100 open keys)')
  const after = await login(base, 'alice', 'alice-pass', '192.0.2.200')
  t.equal(after.status, 429, 'alice is still locked, even with the right password from a fresh address')
  t.match(await after.json(), { statusCode: 429, code: 'GATEHOUSE_SERVER_LOCKED' })
  t.ok(Number(after.headers.get('retry-after')) > 0)
})

test('1 000 IPv6 addresses inside one /64 count as one client address (real socket)', async (t) => {
  const store = new MemoryLockoutStore()
  const base = await start(t, store)
  const answers: number[] = []
  for (let i = 0; i < 1000; i++) {
    // A different account each time: only the address can lock.
    answers.push((await login(base, `victim-${i}`, 'guess', `2001:db8:5:9:${(i * 40503 & 0xffff).toString(16)}::${i.toString(16)}`)).status)
  }
  t.same(answers.slice(0, 20), Array(20).fill(401), 'addressMaxAttempts (4 × 5) guesses are checked')
  t.same(answers.slice(20), Array(980).fill(429), 'then every other address of the /64 is refused')
  t.ok(store.lockedFor('address:2001:db8:5:9::/64', Date.now()) > 0, 'one key, the /64')
  t.equal((await login(base, 'alice', 'alice-pass', '2001:db8:5:a::1')).status, 200, 'the next /64 is another client')
  // A dual-stack listener sees IPv4 clients as IPv4-mapped IPv6: the same client either way.
  for (let i = 0; i < 20; i++) await login(base, `other-${i}`, 'guess', i % 2 === 0 ? '::ffff:192.0.2.50' : '192.0.2.50')
  t.equal((await login(base, 'alice', 'alice-pass', '192.0.2.50')).status, 429, 'IPv4-mapped and plain IPv4 count together')
})
