// Issue 13, item 4: one valid account reset the per-address counter. Every
// successful login reset the client address's failures, so an address that
// interleaved its own good logins with guesses at other accounts sprayed
// forty failures without ever being locked. A success now forgets the
// identity's failures only; the address keeps its count.
import { test, type Test } from 'tap'
import { MemoryUserStore } from '@fastify-gatehouse/auth'
import { AppServer } from '@fastify-gatehouse/server'
import { login } from '../helpers/redis-servers.js'

const FAST = { N: 1024, r: 8, p: 1 }

async function start (t: Test, maxAttempts: number): Promise<string> {
  const users = new MemoryUserStore({ scrypt: FAST })
  await users.add('mallory', { password: 'mallory-pass' })
  await users.add('alice', { password: 'alice-pass' })
  // addressMaxAttempts defaults to 4 × maxAttempts: 20 here.
  const server = new AppServer({ logger: false, users, serverApp: { login: { maxAttempts, backoff: 30 } } })
  t.teardown(() => server.close())
  return await server.serve('127.0.0.1', 0)
}

test('an address spraying guesses between its own good logins is locked after addressMaxAttempts (real socket)', async (t) => {
  const base = await start(t, 5)
  const guesses: number[] = []
  const own: number[] = []
  for (let i = 0; i < 40; i++) {
    // A different victim each time: no identity ever reaches its own limit.
    guesses.push((await login(base, `victim-${i}`, 'guess')).status)
    if (i % 2 === 1) own.push((await login(base, 'mallory', 'mallory-pass')).status)
  }
  t.same(guesses.slice(0, 20), Array(20).fill(401), 'twenty guesses are checked')
  t.same(guesses.slice(20), Array(20).fill(429), 'then the address is locked')
  t.same(own.slice(0, 9), Array(9).fill(200), 'its own good logins went through meanwhile')
  t.ok(own.slice(10).every((s) => s === 429), 'and are refused with the address once it is locked')
  const locked = await login(base, 'alice', 'alice-pass')
  t.equal(locked.status, 429, 'everyone from the address waits')
  t.match(await locked.json(), { statusCode: 429, code: 'GATEHOUSE_SERVER_LOCKED', message: /Too many failed sign-ins/ })
  t.ok(Number(locked.headers.get('retry-after')) > 0, 'with Retry-After')
})

test('a success still resets the identity\'s own counter', async (t) => {
  const base = await start(t, 3)
  for (let round = 0; round < 3; round++) {
    t.equal((await login(base, 'alice', 'wrong')).status, 401)
    t.equal((await login(base, 'alice', 'wrong')).status, 401)
    t.equal((await login(base, 'alice', 'alice-pass')).status, 200, `round ${round + 1}: two failures and a success never lock alice (maxAttempts 3)`)
  }
})

test('the same spray sent all at once: no more than addressMaxAttempts guesses are checked', async (t) => {
  const base = await start(t, 5)
  const sent = Array.from({ length: 60 }, async (_v, i) =>
    i % 3 === 2
      ? { own: true, status: (await login(base, 'mallory', 'mallory-pass')).status }
      : { own: false, status: (await login(base, `victim-${i}`, 'guess')).status })
  const answers = await Promise.all(sent)
  const guessed = answers.filter((a) => !a.own && a.status === 401).length
  t.ok(guessed <= 20, `${guessed} of 40 concurrent guesses checked (addressMaxAttempts 20), with 20 good logins among them`)
  t.ok(answers.every((a) => a.status === 401 || a.status === 429 || (a.own && a.status === 200)), 'only 401, 429 and the own 200s')
  const next = await login(base, 'victim-x', 'guess')
  if (guessed === 20) t.equal(next.status, 429, 'the address is locked once twenty have failed')
  else t.ok(next.status === 401 || next.status === 429)
})
