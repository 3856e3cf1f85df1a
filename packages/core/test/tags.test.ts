import { test } from 'tap'
import { compileAuthRule, invalidTag, invalidTagMessage, isTag, parseTags, SUPERADMIN, TAG_CHARACTERS } from '@fastify-gatehouse/core'

test('parseTags', async (t) => {
  t.same(parseTags('admin, ops ,,ops'), ['admin', 'ops'])
  t.same(parseTags([' a', 'b ', '']), ['a', 'b'])
  t.same(parseTags(null), [])
  t.same(parseTags(undefined), [])
  t.throws(() => parseTags([1 as unknown as string]), { code: 'GATEHOUSE_CORE_INVALID_TAGS' })
  t.throws(() => parseTags(42 as unknown as string), { code: 'GATEHOUSE_CORE_INVALID_TAGS' })
})

test('isTag and invalidTag: the rule grammar\'s alphabet, the one the rule compiler reads', async (t) => {
  const tags = ['admin', 'a.b:c-d_e', 'SUPERADMIN', '0', 'ops:eu-west.1']
  for (const tag of tags) {
    t.ok(isTag(tag), tag)
    // Every tag is a rule naming exactly that tag.
    t.ok(compileAuthRule(tag)({ hasTag: (x) => x === tag }), `rule ${tag}`)
  }
  for (const bad of ['', 'a b', 'a,b', 'a|b', 'a&b', '!a', '(a)', 'é', 'a\n', '\uff41dmin', 'a"b', 'a/b', 'a*', 42, null]) {
    t.notOk(isTag(bad), JSON.stringify(bad))
  }
  t.equal(invalidTag(['ok', 'a b', 'c|d']), 'a b', 'the first bad one')
  t.equal(invalidTag(tags), undefined)
  t.equal(invalidTag([]), undefined)
  t.equal(invalidTagMessage('a\nb'), 'tag "a\\nb" is not allowed: tags use only letters, digits and _ . : -', 'control characters show escaped')
  t.equal(TAG_CHARACTERS, '[A-Za-z0-9_.:-]')
  t.equal(SUPERADMIN, 'SUPERADMIN')
})
