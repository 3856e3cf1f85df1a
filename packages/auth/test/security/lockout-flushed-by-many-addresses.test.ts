// Issue 25, item 9: MemoryLockoutStore's LRU could be flushed by an attacker
// with many addresses: 100 000 new keys pushed a locked identity out, and
// its lock was gone. Locked keys now live apart and are never evicted
// (D-LOCKOUT-10); an IPv6 client counts as its /64 (D-LOCKOUT-11).
import { test } from 'tap'
import { addressKey, MemoryLockoutStore, MemoryUserStore } from '@fastify-gatehouse/auth'
import { basicHeader, build } from '../helpers/build.js'

const identity = { maxAttempts: 5, backoff: 30, resetAfter: 3600 }
const address = { maxAttempts: 20, backoff: 30, resetAfter: 3600 }

function lock (store: MemoryLockoutStore, key: string, now: number): void {
  for (let i = 0; i < identity.maxAttempts; i++) {
    if (store.claim(key, identity, now) !== 0) throw new Error('refused before the lock')
    store.recordFailure(key, identity, now)
  }
}

test('100 000 distinct addresses after a lock do not lift it (memory measured)', async (t) => {
  const store = new MemoryLockoutStore()
  const now = 1_000_000
  lock(store, 'identity:victim', now)
  t.equal(store.lockedFor('identity:victim', now), 30)
  const before = process.memoryUsage().heapUsed
  let refused = 0
  for (let i = 0; i < 100_000; i++) {
    // One failed guess each, as a login from a new address at another account does.
    const key = addressKey(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`)
    if (store.claim(key, address, now + 1) !== 0) refused++
    store.recordFailure(key, address, now + 1)
    store.claim(`identity:user-${i}`, identity, now + 1)
    store.recordFailure(`identity:user-${i}`, identity, now + 1)
  }
  const open = process.memoryUsage().heapUsed - before
  t.equal(refused, 0, 'every new address was let through')
  t.same(store.sizes, { open: 100_000, locked: 1 }, 'the open keys are at their bound; the lock is kept apart')
  t.equal(store.lockedFor('identity:victim', now + 2), 30, 'still locked after 200 000 new keys')
  t.equal(store.claim('identity:victim', identity, now + 2), 30, 'and a claim is refused')
  t.comment(`heap for 100 000 open keys: about ${Math.round(open / 1e6)} MB (${Math.round(open / 100_000)} bytes a key)`)

  const locks = process.memoryUsage().heapUsed
  const many = new MemoryLockoutStore()
  for (let i = 0; i < 100_000; i++) lock(many, `identity:u${i}`, now)
  t.same(many.sizes, { open: 0, locked: 100_000 })
  t.comment(`heap for 100 000 locked keys: about ${Math.round((process.memoryUsage().heapUsed - locks) / 1e6)} MB`)
})

test('full of locks, the store fails closed until locks end; no lock is dropped', async (t) => {
  const store = new MemoryLockoutStore({ max: 10, maxLocked: 3 })
  for (const name of ['a', 'b', 'c']) lock(store, `identity:${name}`, 0)
  t.same(store.sizes, { open: 0, locked: 3 })
  t.equal(store.claim('identity:d', identity, 1000), 30, 'another key is refused while the locked keys are at their bound')
  t.equal(store.claim('address:192.0.2.1', address, 1000), 30)
  t.equal(store.lockedFor('identity:a', 1000), 29, 'the locks are kept')
  // D-LOCKOUT-13: a key that has been locked is kept until its failures are forgotten, so the bound holds past the lock.
  t.equal(store.claim('identity:d', identity, 30_000), 30, 'the locks ended, but the keys are kept (their failures count) and the bound still holds')
  t.equal(store.claim('identity:a', identity, 30_001), 0, 'a kept key itself may try again')
  t.equal(store.recordFailure('identity:a', identity, 30_001), 60, 'a sixth failure doubles the lock')
  const quiet = 30_000 + 3600_000 + 1
  t.equal(store.claim('identity:d', identity, quiet), 0, 'once resetAfter has passed since the locks ended, claims go through again')
  store.claim('identity:e', identity, quiet)
  t.same(store.sizes, { open: 2, locked: 1 }, 'the forgotten keys were dropped as writes swept them; a is still locked')
})

test('1 000 addresses inside one /64 count as one; IPv4-mapped addresses as IPv4', async (t) => {
  const store = new MemoryLockoutStore()
  const answers: number[] = []
  for (let i = 0; i < 1000; i++) {
    const key = addressKey(`2001:db8:7:42:${((i * 7919) & 0xffff).toString(16)}:${i.toString(16)}:1:${(i & 15).toString(16)}`)
    const wait = store.claim(key, address, 0)
    answers.push(wait)
    if (wait === 0) store.recordFailure(key, address, 0)
  }
  t.equal(answers.filter((w) => w === 0).length, 20, 'addressMaxAttempts (20) guesses from the whole /64')
  t.ok(answers.slice(20).every((w) => w === 30), 'then all 980 others are refused')
  t.equal(store.lockedFor(addressKey('2001:db8:7:42::1'), 0), 30)
  t.equal(store.lockedFor(addressKey('2001:db8:7:43::1'), 0), 0, 'the next /64 is another client')
  t.equal(addressKey('::ffff:192.0.2.7'), 'address:192.0.2.7')
  t.equal(addressKey('::FFFF:c000:0207'), 'address:192.0.2.7')
  t.equal(addressKey('192.0.2.7'), 'address:192.0.2.7')
})

test('addressKey: IPv6 spelled any way gives one /64 key', async (t) => {
  const cases: Array<[string, string]> = [
    ['2001:db8::1', 'address:2001:db8:0:0::/64'],
    ['2001:0DB8:0000:0000:ffff:ffff:ffff:ffff', 'address:2001:db8:0:0::/64'],
    ['2001:db8:1:2:3:4:5:6', 'address:2001:db8:1:2::/64'],
    ['2001:db8:1:2::', 'address:2001:db8:1:2::/64'],
    ['::1', 'address:0:0:0:0::/64'],
    ['::', 'address:0:0:0:0::/64'],
    ['fe80::1%eth0', 'address:fe80:0:0:0::/64'],
    ['64:ff9b::192.0.2.1', 'address:192.0.2.1'], // NAT64: its IPv4 client (D-LOCKOUT-14)
    ['::192.0.2.1', 'address:0:0:0:0::/64'],
    ['not an address', 'address:not an address'],
    ['', 'address:']
  ]
  for (const [given, key] of cases) t.equal(addressKey(given), key, given)
})

test('basicLockout counts an IPv6 client by its /64', async (t) => {
  const users = new MemoryUserStore({ scrypt: { N: 1024, r: 8, p: 1 } })
  await users.add('alice', { password: 'wonderland-1' })
  const lockouts = new MemoryLockoutStore()
  const app = await build({ basic: { users }, basicLockout: { store: lockouts, maxAttempts: 50, addressMaxAttempts: 3, backoff: 60 } })
  t.teardown(() => app.close())
  const statuses: number[] = []
  for (let i = 0; i < 10; i++) {
    const response = await app.inject({ url: '/me', remoteAddress: `2001:db8:aa:1::${(i + 1).toString(16)}`, headers: { authorization: basicHeader('alice', `guess-${i}`) } })
    statuses.push(response.statusCode)
  }
  t.same(statuses, [401, 401, 401, 429, 429, 429, 429, 429, 429, 429], 'three guesses from the /64, then it is locked')
  t.ok(lockouts.lockedFor('address:2001:db8:aa:1::/64', Date.now()) > 0)
})

// Issue 25 review, item 2: a key whose lock had ended went back among the
// evictable keys with its count; 1 000 new keys (max 1000) pushed it out and
// the attacker had maxAttempts fresh guesses and only the first backoff.
test('a key that has been locked is not evicted after its lock ends: the next failure doubles the lock', async (t) => {
  const store = new MemoryLockoutStore({ max: 1000 })
  let now = 1_000_000
  lock(store, 'identity:victim', now)
  t.equal(store.lockedFor('identity:victim', now), 30)
  now += 31_000 // the lock has passed
  t.equal(store.lockedFor('identity:victim', now), 0)
  for (let i = 0; i < 1500; i++) {
    const key = addressKey(`10.9.${i >> 8}.${i & 255}`)
    store.claim(key, address, now)
    store.recordFailure(key, address, now)
  }
  t.same(store.sizes, { open: 1000, locked: 1 }, 'the flood filled the open keys; the victim is kept apart')
  t.equal(store.claim('identity:victim', identity, now), 0, 'one guess after the lock')
  t.equal(store.recordFailure('identity:victim', identity, now), 60, 'its failure locks for the doubled backoff')
  t.equal(store.claim('identity:victim', identity, now + 1), 60)
})

test('a key that has been locked is forgotten once resetAfter has passed after its lock', async (t) => {
  const store = new MemoryLockoutStore({ max: 10 })
  const start = 1_000_000
  lock(store, 'identity:victim', start)
  const later = start + 30_000 + identity.resetAfter * 1000 + 1
  for (let i = 0; i < 200; i++) store.claim(`identity:other-${i}`, identity, later)
  t.same(store.sizes, { open: 10, locked: 0 }, 'swept out: its failures were forgotten anyway')
  t.equal(store.claim('identity:victim', identity, later), 0)
  t.equal(store.recordFailure('identity:victim', identity, later), 0, 'a fresh count: one failure does not lock')
})

// Issue 25 review, item 4: every IPv4 client behind a NAT64 edge came as
// 64:ff9b::a.b.c.d and shared one key, 64:ff9b:0:0::/64 (D-LOCKOUT-14).
test('addressKey: NAT64 addresses are their IPv4 client; loopback, IPv4-compatible and link-local stay /64', async (t) => {
  const cases: Array<[string, string]> = [
    ['64:ff9b::192.0.2.7', 'address:192.0.2.7'],
    ['64:ff9b::c000:207', 'address:192.0.2.7'],
    ['64:FF9B:0:0:0:0:C000:0208', 'address:192.0.2.8'],
    ['64:ff9b::198.51.100.1', 'address:198.51.100.1'],
    // RFC 8215 local use: the whole address (the translator's prefix length places the IPv4 bits).
    ['64:ff9b:1::192.0.2.7', 'address:64:ff9b:1:0:0:0:c000:207'],
    ['64:ff9b:1:abcd::c000:207', 'address:64:ff9b:1:abcd:0:0:c000:207'],
    ['64:ff9b:1:c000:2:700::', 'address:64:ff9b:1:c000:2:700:0:0'],
    // Other addresses under 64:ff9b::/32 are no NAT64 prefix: a /64 as any IPv6 address.
    ['64:ff9b:2::1', 'address:64:ff9b:2:0::/64'],
    ['::1', 'address:0:0:0:0::/64'],
    ['::192.0.2.7', 'address:0:0:0:0::/64'],
    ['fe80::1%eth0', 'address:fe80:0:0:0::/64']
  ]
  for (const [given, key] of cases) t.equal(addressKey(given), key, given)
  t.not(addressKey('64:ff9b::192.0.2.7'), addressKey('64:ff9b::192.0.2.8'), 'two IPv4 clients behind the translator are two keys')
  t.not(addressKey('64:ff9b:1::192.0.2.7'), addressKey('64:ff9b:1::192.0.2.8'))
})

test('basicLockout: guesses of one IPv4 client through NAT64 lock it, not the other clients of the translator', async (t) => {
  const users = new MemoryUserStore({ scrypt: { N: 1024, r: 8, p: 1 } })
  await users.add('alice', { password: 'wonderland-1', tags: 'ops' })
  const app = await build({ basic: { users }, basicLockout: { store: new MemoryLockoutStore(), maxAttempts: 50, addressMaxAttempts: 3, backoff: 60 } })
  t.teardown(() => app.close())
  const statuses: number[] = []
  for (let i = 0; i < 4; i++) {
    statuses.push((await app.inject({ url: '/me', remoteAddress: '64:ff9b::203.0.113.9', headers: { authorization: basicHeader('alice', `guess-${i}`) } })).statusCode)
  }
  t.same(statuses, [401, 401, 401, 429], 'three guesses, then the client is locked')
  const same = await app.inject({ url: '/me', remoteAddress: '203.0.113.9', headers: { authorization: basicHeader('alice', 'wonderland-1') } })
  t.equal(same.statusCode, 429, 'the locked client reaching the server over IPv4 is the same client')
  t.equal(same.json().code, 'GATEHOUSE_AUTH_LOCKED')
  const other = await app.inject({ url: '/me', remoteAddress: '64:ff9b::203.0.113.10', headers: { authorization: basicHeader('alice', 'wonderland-1') } })
  t.equal(other.statusCode, 200, 'another IPv4 client behind the same translator signs in (after the check above: a right password is cached)')
})
