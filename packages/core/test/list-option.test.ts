import { test } from 'tap'
import { isSerializedOrigin, parseList } from '@fastify-gatehouse/core'

test('parseList: a list or a comma string, trimmed, empties dropped, never the caller\'s array', async (t) => {
  t.same(parseList(' a, b ,,c '), ['a', 'b', 'c'])
  const given = [' x ', '', 'y']
  const parsed = parseList(given)
  t.same(parsed, ['x', 'y'])
  t.not(parsed, given)
  t.same(given, [' x ', '', 'y'], 'the caller\'s array is unchanged')
  t.same(parseList(''), [])
})

test('isSerializedOrigin: scheme://host[:port] as browsers send it (RFC 6454)', async (t) => {
  for (const ok of ['https://app.example.com', 'http://localhost:3000', 'http://127.0.0.1:8080', 'http://[::1]:8000', 'chrome-extension://abc']) t.ok(isSerializedOrigin(ok), ok)
  for (const bad of ['*', 'null', 'https://app.example.com/', 'https://App.example.com', 'app.example.com', 'https://a.example/path', 'https://a.example:123456', '']) t.notOk(isSerializedOrigin(bad), bad)
})
