import { test, type Test } from 'tap'
import { createHmac } from 'node:crypto'
import { AuthCore } from '@fastify-gatehouse/auth'
import { JwtVerifier } from '../src/jwt.js'
import { RepeatFilter } from '../src/repeat-filter.js'

const SECRET = 'a-very-long-shared-secret-of-32+bytes!'
let sequence = 0
function fresh (): string {
  const part = (v: unknown): string => Buffer.from(JSON.stringify(v)).toString('base64url')
  const input = `${part({ alg: 'HS256' })}.${part({ sub: 'alice', exp: Math.floor(Date.now() / 1000) + 600, jti: String(sequence++) })}`
  return `${input}.${createHmac('sha256', SECRET).update(input).digest('base64url')}`
}

test('RepeatFilter: false on first sight, true on the second, then counts afresh', async (t) => {
  const filter = new RepeatFilter(8)
  const [a, b] = [fresh(), fresh()]
  t.equal(filter.repeated(a), false)
  t.equal(filter.repeated(b), false)
  t.equal(filter.repeated(a), true, 'a came back')
  t.equal(filter.repeated(a), false, 'and was forgotten: it counts once')
  t.equal(filter.repeated(b), true)
  t.equal(filter.repeated(''), false, 'an empty key is a key')
  t.equal(filter.repeated(''), true)
})

test('RepeatFilter: a fixed table, whatever comes through it: a key pushed out by others is met afresh', async (t) => {
  const filter = new RepeatFilter(100)
  filter.repeated('first')
  // 128 slots: 200 000 other keys overwrite every slot many times over.
  for (let i = 0; i < 200_000; i++) filter.repeated(`key-${i}`)
  t.equal(filter.repeated('first'), false, 'forgotten: the table kept no more than its slots')
  t.equal(filter.repeated('first'), true)
  // 128 slots: of 64 distinct keys seen twice in a row, each is told repeated.
  let told = 0
  for (let i = 0; i < 64; i++) { filter.repeated(`again-${i}`); if (filter.repeated(`again-${i}`)) told++ }
  t.equal(told, 64)
})

// Counts signature checks (verify is where the key is used).
function countVerify (t: Test): { count: number } {
  const counter = { count: 0 }
  const original = JwtVerifier.prototype.verify
  JwtVerifier.prototype.verify = function (this: JwtVerifier, ...args: Parameters<JwtVerifier['verify']>) {
    counter.count++
    return original.apply(this, args)
  }
  t.teardown(() => { JwtVerifier.prototype.verify = original })
  return counter
}

test('a full JWT cache takes a token in at its second verification; before it is full, at its first', async (t) => {
  const verified = countVerify(t)
  const core = await AuthCore.create({ jwt: [{ name: 'main', secret: SECRET, algorithm: 'HS256' }], jwtCache: { max: 2 } })
  const call = async (token: string): Promise<string> => (await core.authenticate(`Bearer ${token}`)).identity
  const [a, b, c] = [fresh(), fresh(), fresh()]
  await call(a)
  await call(a)
  t.equal(verified.count, 1, 'not full: cached at once')
  await call(b)
  t.equal(verified.count, 2, 'b fills the cache')
  t.equal(await call(c), 'alice', 'a token met on a full cache is accepted')
  t.equal(verified.count, 3)
  await call(c)
  t.equal(verified.count, 4, 'not cached at its first verification')
  await call(c)
  t.equal(verified.count, 4, 'cached at its second')
  for (let i = 0; i < 500; i++) await call(fresh())
  t.equal(verified.count, 504, 'tokens that never come back are each verified once')
  await call(c)
  t.equal(verified.count, 504, 'and did not push the token that came back out of the cache')
})
