import { test } from 'tap'
import { parseTags } from '@gatehouse/core'

test('parseTags', async (t) => {
  t.same(parseTags('admin, ops ,,ops'), ['admin', 'ops'])
  t.same(parseTags([' a', 'b ', '']), ['a', 'b'])
  t.same(parseTags(null), [])
  t.same(parseTags(undefined), [])
  t.throws(() => parseTags([1 as unknown as string]), TypeError)
  t.throws(() => parseTags(42 as unknown as string), TypeError)
})
