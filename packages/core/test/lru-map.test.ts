import { test } from 'tap'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
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

test('under churn (sets, gets, peeks, deletes) it keeps exactly the most recently used, in order, and reports each eviction', async (t) => {
  // A reference model, a list from least to most recently used, against
  // LruMap's kept eviction iterator (D-CORE-02): random operations on 3×max
  // keys, so evictions, re-inserts ahead of and behind it, and deletes mix.
  for (const max of [1, 7, 50]) {
    const evicted: string[] = []
    const lru = new LruMap<string, number>(max, (key, value) => { evicted.push(`${key}=${value}`) })
    const model: Array<[string, number]> = []
    const expectedEvicted: string[] = []
    let seed = 12345
    const random = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648
    const at = (key: string): number => model.findIndex(([k]) => k === key)
    for (let i = 0; i < 60_000; i++) {
      const key = `k${Math.floor(random() * max * 3)}`
      const op = random()
      if (op < 0.45) {
        lru.set(key, i)
        if (at(key) !== -1) model.splice(at(key), 1)
        model.push([key, i])
        if (model.length > max) expectedEvicted.push(model.shift()!.join('='))
      } else if (op < 0.8) {
        const j = at(key)
        const value = lru.get(key)
        if (value !== (j === -1 ? undefined : model[j]![1])) t.fail(`get ${key} at ${i}: ${value}`)
        if (j !== -1) model.push(model.splice(j, 1)[0]!)
      } else if (op < 0.9) {
        if (lru.peek(key) !== (at(key) === -1 ? undefined : model[at(key)]![1])) t.fail(`peek ${key} at ${i}`)
      } else {
        const j = at(key)
        if (lru.delete(key) !== (j !== -1)) t.fail(`delete ${key} at ${i}`)
        if (j !== -1) model.splice(j, 1)
      }
      if (i % 500 === 0 && JSON.stringify([...lru.entries()]) !== JSON.stringify(model)) {
        t.same([...lru.entries()], model, `max ${max}: the entries after ${i} operations`)
        return
      }
    }
    t.same([...lru.entries()], model, `max ${max}: the entries at the end`)
    t.same(evicted, expectedEvicted, `max ${max}: ${evicted.length} evictions, the least recently used each time`)
  }
})

test('a full map that is read much and evicts seldom holds no garbage (the kept iterator is dropped)', async (t) => {
  // A Map iterator keeps alive every table V8 replaced since its last step:
  // re-inserting 1 000 entries 300 times (each get re-inserts) without an
  // eviction would hold some 300 tables and their old values. Counted by
  // heap size, which the bug moves by hundreds of MiB.
  setFlagsFromString('--expose-gc')
  const gc = runInNewContext('gc') as () => void
  const lru = new LruMap<number, number[]>(1000)
  for (let i = 0; i <= 1000; i++) lru.set(i, new Array(128).fill(i)) // one eviction: an iterator is kept
  gc()
  const before = process.memoryUsage().heapUsed
  for (let round = 0; round < 300; round++) {
    for (let i = 1; i <= 1000; i++) lru.set(i, new Array(128).fill(round)) // re-inserts, no eviction
  }
  gc()
  const grown = (process.memoryUsage().heapUsed - before) / 2 ** 20
  t.ok(grown < 32, `heap grew ${grown.toFixed(1)} MiB (kept forever, the iterator would hold ~300 MiB)`)
  t.equal(lru.size, 1000)
})
