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
