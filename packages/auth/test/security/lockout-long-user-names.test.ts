// Issue 25 review, item 1: a Basic user name has no length limit, so a
// lockout key `identity:<name>` could be ~6 000 characters (an 8 KB header),
// and 100 000 of them in MemoryLockoutStore took ~600 MB. An identity longer
// than any store accepts (200) is now keyed by its SHA-256 (D-AUTH-77).
import { test } from 'tap'
import { identityKey, MemoryLockoutStore, MemoryUserStore, type LockoutPolicy } from '@fastify-gatehouse/auth'
import { basicHeader, build } from '../helpers/build.js'

const policy = { maxAttempts: 5, backoff: 30, resetAfter: 3600 }

/** A MemoryLockoutStore that remembers every key it is asked about. */
class RecordingStore extends MemoryLockoutStore {
  readonly keys = new Set<string>()
  override claim (key: string, p: LockoutPolicy, now: number): number {
    this.keys.add(key)
    return super.claim(key, p, now)
  }
}

test('identityKey: at most 209 characters; short identities as before', async (t) => {
  t.equal(identityKey('alice'), 'identity:alice', 'unchanged, so stored counters keep their keys')
  t.equal(identityKey('a'.repeat(200)), `identity:${'a'.repeat(200)}`, 'the longest identity a store accepts is kept as it is')
  const long = identityKey('a'.repeat(201))
  t.match(long, /^identity:sha256:[A-Za-z0-9_-]{43}$/)
  t.equal(long.length, 59)
  t.not(identityKey('a'.repeat(6000)), identityKey('a'.repeat(6001)), 'two long names are two keys')
  t.equal(identityKey('b'.repeat(6000)), identityKey('b'.repeat(6000)), 'the same name is the same key')
})

test('a 6 000-character Basic user name is counted under a bounded key, and locks', async (t) => {
  const users = new MemoryUserStore({ scrypt: { N: 1024, r: 8, p: 1 } })
  await users.add('alice', { password: 'wonderland-1' })
  const store = new RecordingStore()
  const app = await build({ basic: { users }, basicLockout: { store, maxAttempts: 2, addressMaxAttempts: 100, backoff: 60 } })
  t.teardown(() => app.close())
  const name = 'x'.repeat(6000)
  const statuses: number[] = []
  for (let i = 0; i < 3; i++) {
    const response = await app.inject({ url: '/me', headers: { authorization: basicHeader(name, `guess-${i}`) } })
    statuses.push(response.statusCode)
    if (i === 2) {
      t.equal(response.json().code, 'GATEHOUSE_AUTH_LOCKED')
      t.equal(response.headers['retry-after'], '60')
    }
  }
  t.same(statuses, [401, 401, 429], 'two failures lock the long name as they would any other')
  const longest = Math.max(...[...store.keys].map((key) => key.length))
  t.ok(longest <= 209, `every key at most 209 characters (longest ${longest})`)
  t.ok([...store.keys].includes(identityKey(name)))
})

test('100 000 failures with long user names stay within a bounded memory (measured)', async (t) => {
  const store = new MemoryLockoutStore()
  const now = 1_000_000
  const suffix = 'n'.repeat(6000)
  globalThis.gc?.()
  const before = process.memoryUsage().heapUsed
  for (let i = 0; i < 100_000; i++) {
    const key = identityKey(`${i}-${suffix}`)
    store.claim(key, policy, now)
    store.recordFailure(key, policy, now)
  }
  globalThis.gc?.()
  const used = process.memoryUsage().heapUsed - before
  t.same(store.sizes, { open: 100_000, locked: 0 })
  t.comment(`heap for 100 000 long-name keys: about ${Math.round(used / 1e6)} MB (${Math.round(used / 100_000)} bytes a key)`)
  // Unbounded, 6 000-character keys took ~600 MB (12 000 bytes a key as UTF-16, or 6 000 as Latin-1).
  t.ok(used < 100e6, `under 100 MB (${Math.round(used / 1e6)} MB)`)
})
