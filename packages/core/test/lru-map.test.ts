import { test } from 'tap'
import { LruMap } from '@fastify-gatehouse/core'

test('LruMap keeps at most max entries and drops the least recently used', async (t) => {
  const evicted: Array<[string, number]> = []
  const lru = new LruMap<string, number>(2, (key, value) => evicted.push([key, value]))
  lru.set('a', 1)
  lru.set('b', 2)
  t.equal(lru.get('a'), 1, 'a is now the most recently used')
  lru.set('c', 3)
  t.same(evicted, [['b', 2]])
  t.equal(lru.size, 2)
  t.notOk(lru.has('b'))
  t.same([...lru.entries()], [['a', 1], ['c', 3]])
})

test('peek does not change the order; set on a present key refreshes it; delete is not an eviction', async (t) => {
  const evicted: string[] = []
  const lru = new LruMap<string, string>(2, (key) => evicted.push(key))
  lru.set('a', 'A')
  lru.set('b', 'B')
  t.equal(lru.peek('a'), 'A')
  lru.set('c', 'C')
  t.same(evicted, ['a'], 'peek left a the least recently used')
  lru.set('b', 'B2')
  lru.set('d', 'D')
  t.same(evicted, ['a', 'c'])
  t.equal(lru.get('b'), 'B2')
  t.ok(lru.delete('b'))
  t.notOk(lru.delete('b'))
  t.same(evicted, ['a', 'c'])
  t.equal(lru.get('missing'), undefined)
})

test('max 0 keeps nothing; a bad max is a coded boot error', async (t) => {
  const off = new LruMap<string, number>(0)
  off.set('a', 1)
  t.equal(off.size, 0)
  t.equal(off.get('a'), undefined)
  for (const bad of [-1, 1.5, Number.NaN, Infinity, '3' as unknown as number]) {
    t.throws(() => new LruMap(bad), { code: 'GATEHOUSE_CORE_INVALID_OPTIONS', message: /^max: must be an integer of 0 or more/ }, String(bad))
  }
})

test('a full map costs the same per insert at 10 and at 100 000 entries (no scan)', async (t) => {
  // Counted, not timed: each insert past max evicts exactly one entry.
  for (const max of [10, 100_000]) {
    let evictions = 0
    const lru = new LruMap<number, number>(max, () => { evictions++ })
    for (let i = 0; i < max * 2; i++) lru.set(i, i)
    t.equal(evictions, max, `max ${max}`)
    t.equal(lru.size, max)
    t.equal(lru.peek(max * 2 - 1), max * 2 - 1)
    t.equal(lru.peek(max - 1), undefined)
  }
})
