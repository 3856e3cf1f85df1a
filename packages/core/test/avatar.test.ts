import { test } from 'tap'
import { Avatar } from '@fastify-gatehouse/core'

test('Avatar keeps identity, normalised tags and backend', async (t) => {
  const a = new Avatar('alice', { tags: 'admin, ops,, admin', backend: 'basic' })
  t.equal(a.identity, 'alice')
  t.same(a.tags, ['admin', 'ops'])
  t.equal(a.backend, 'basic')
  t.ok(a.hasTag('ops'))
  t.notOk(a.hasTag('Ops'), 'tags are case-sensitive')
  t.ok(Object.isFrozen(a.tags))
  t.same(JSON.parse(JSON.stringify(a)), { identity: 'alice', tags: ['admin', 'ops'], backend: 'basic' })
})

test('Avatar accepts a list of tags and no tags', async (t) => {
  t.same(new Avatar('bob', { tags: [' x ', ''], backend: 'session' }).tags, ['x'])
  t.same(new Avatar('bob', { backend: 'jwt:main' }).tags, [])
})

test('Avatar refuses an empty identity or a missing backend', async (t) => {
  t.throws(() => new Avatar('', { backend: 'basic' }), { code: 'GATEHOUSE_CORE_INVALID_AVATAR' })
  t.throws(() => new Avatar('x', {} as never), { code: 'GATEHOUSE_CORE_INVALID_AVATAR' })
  t.throws(() => new Avatar('x', null as never), { code: 'GATEHOUSE_CORE_INVALID_AVATAR' })
})

test('Avatar.claims: a frozen copy of JSON data, shared by avatars built from it, kept out of toJSON', async (t) => {
  const payload = JSON.parse('{"sub":"alice","email":"a@example.test","groups":["a",{"b":1}],"__proto__":{"x":1}}') as Record<string, unknown>
  const a = new Avatar('alice', { backend: 'jwt:idp', claims: payload })
  t.not(a.claims, payload, 'copied: the caller keeps its own object')
  t.same(a.claims, payload)
  t.ok(Object.isFrozen(a.claims))
  t.ok(Object.isFrozen(a.claims!.groups))
  t.ok(Object.isFrozen((a.claims!.groups as unknown[])[1]))
  t.ok(Object.hasOwn(a.claims!, '__proto__'), 'a "__proto__" claim stays an own property')
  t.equal(Object.getPrototypeOf(a.claims), Object.prototype)
  t.throws(() => { (a.claims as Record<string, unknown>).sub = 'mallory' }, TypeError)
  t.equal(payload.sub, 'alice')
  const again = new Avatar('alice', { backend: 'jwt:idp', claims: a.claims, authenticatedAt: 1 })
  t.equal(again.claims, a.claims, 'shared, not copied again')
  t.same(JSON.parse(JSON.stringify(a)), { identity: 'alice', tags: [], backend: 'jwt:idp' }, 'claims stay out of toJSON')
  t.same(Object.keys({ ...a }).sort(), ['backend', 'identity', 'tags'])
  t.equal(new Avatar('bob', { backend: 'basic' }).claims, null)
  t.equal(new Avatar('bob', { backend: 'basic', claims: null }).claims, null)
})

test('Avatar.claims refuses what is not JSON data', async (t) => {
  const code = { code: 'GATEHOUSE_CORE_INVALID_AVATAR' }
  for (const claims of [[], 'x', { f: () => 1 }, { d: new Date() }, { n: Number.NaN }, { i: Infinity }, { b: 1n }, { u: undefined }]) {
    t.throws(() => new Avatar('a', { backend: 'x', claims: claims as never }), code)
  }
  const cycle: Record<string, unknown> = {}
  cycle.self = cycle
  t.throws(() => new Avatar('a', { backend: 'x', claims: cycle }), code)
  let deep: Record<string, unknown> = {}
  for (let i = 0; i < 40; i++) deep = { d: deep }
  t.throws(() => new Avatar('a', { backend: 'x', claims: deep }), code)
})

// D-AUTH-90: a verifier's already-parsed tags are taken as they are, and only through withCheckedTags.
test('Avatar.withCheckedTags takes the list as given, checks the rest, and trusts nothing after it', async (t) => {
  const list = ['admin', 'ops']
  const a = Avatar.withCheckedTags('alice', { tags: list, backend: 'jwt:main', authenticatedAt: 5, claims: { sub: 'alice' } })
  t.ok(a instanceof Avatar)
  t.equal(a.tags, list, 'the same list, not a parsed copy')
  t.ok(Object.isFrozen(a.tags))
  t.ok(a.hasTag('ops'))
  t.equal(a.authenticatedAt, 5)
  t.same(a.claims, { sub: 'alice' })
  t.throws(() => Avatar.withCheckedTags('', { tags: [], backend: 'jwt:main' }), { code: 'GATEHOUSE_CORE_INVALID_AVATAR' })
  // A throw inside must not leave the next constructor trusting its tags.
  const b = new Avatar('bob', { tags: [' ops ', 'ops', ''], backend: 'basic' })
  t.same(b.tags, ['ops'], 'the constructor still parses after a withCheckedTags that threw')
  const c = new Avatar('carol', { tags: [' ops '], backend: 'basic' })
  t.same(c.tags, ['ops'], 'and after one that succeeded')
})

test('Avatar.withCheckedTags: an avatar made inside a getter of its init is not trusted', async (t) => {
  let inner: Avatar | undefined
  const init = {
    tags: ['reader'] as readonly string[],
    get backend (): string {
      inner ??= new Avatar('mallory', { backend: 'basic', tags: [' admin ', 'admin', ''] as unknown as string[] })
      return 'jwt:main'
    }
  }
  const outer = Avatar.withCheckedTags('alice', init)
  t.same(outer.tags, ['reader'])
  t.same(inner?.tags, ['admin'], 'the inner avatar\'s tags were parsed (trimmed, deduplicated, empties dropped)')
})
