// Issue 13, item 15: the lock counted from the start of the request (before
// scrypt), so every lock was shortened by the time the check took. It now
// counts from the recorded failure. The clock here moves 8 s during each
// password check, so the two readings differ by exactly that.
import { test } from 'tap'
import Fastify from 'fastify'
import { middlewareChain } from '@fastify-gatehouse/core'
import { MemoryUserStore, type VerifiedUser } from '@fastify-gatehouse/auth'
import { allComponents, PasswordMethod, serverApp } from '@fastify-gatehouse/server'

class SlowClockUsers extends MemoryUserStore {
  constructor (readonly clock: { now: number }) { super({ scrypt: { N: 1024, r: 8, p: 1 } }) }
  override async verify (identity: string, password: string): Promise<VerifiedUser | null> {
    this.clock.now += 8000
    return await super.verify(identity, password)
  }
}

test('the lock starts when the failure is known, not when the request began', async (t) => {
  const clock = { now: 1_000_000 }
  const users = new SlowClockUsers(clock)
  await users.add('alice', { password: 'alice-pass' })
  const app = Fastify()
  t.teardown(() => app.close())
  await middlewareChain(app, { middleware: { session: true } }, { components: allComponents })
  await app.register(serverApp, { prefix: '/_server', methods: [new PasswordMethod({ users, maxAttempts: 3, backoff: 30, now: () => clock.now })] })
  const attempt = (password: string) => app.inject({ method: 'POST', url: '/_server/login', payload: { identity: 'alice', password } })
  for (let i = 0; i < 3; i++) t.equal((await attempt('wrong')).statusCode, 401)
  const locked = await attempt('alice-pass')
  t.equal(locked.statusCode, 429)
  t.equal(locked.headers['retry-after'], '30', 'the full 30 s from the third failure (not 22 s from its request\'s start)')
  t.match(locked.json(), { code: 'GATEHOUSE_SERVER_LOCKED' })
  clock.now += 29_000
  t.equal((await attempt('alice-pass')).headers['retry-after'], '1', '29 s on: still locked')
  clock.now += 1000
  t.equal((await attempt('alice-pass')).statusCode, 200, '30 s on: open')
})
