import { test } from 'tap'
import { LruMap } from '@fastify-gatehouse/core'
import { BoundedCache, EVICTION_SAMPLE } from '../src/bounded-cache.js'

// A seeded generator, so that a failure repeats.
function seeded (seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s ^= s << 13; s >>>= 0
    s ^= s >>> 17
    s ^= s << 5; s >>>= 0
    return s / 4294967296
  }
}

const FOREVER = Number.POSITIVE_INFINITY

// The hits of `rounds` passes over keys 0..keys-1, in order: a cache miss stores the key.
function cyclicHits (get: (k: string) => unknown, set: (k: string) => void, keys: number, rounds: number): number {
  let hits = 0
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < keys; i++) {
      if (get(`k${i}`) !== undefined) hits++
      else set(`k${i}`)
    }
  }
  return hits
}

test('bounded: never holds more than max entries, whatever is inserted', async (t) => {
  const cache = new BoundedCache<number>(100, seeded(1))
  for (let i = 0; i < 10_000; i++) {
    cache.set(`key-${i}`, i, FOREVER, 0)
    if (cache.size > 100) t.fail(`size ${cache.size} after ${i + 1} inserts`)
  }
  t.equal(cache.size, 100)
  t.equal(cache.get('key-9999', 0), 9999, 'the entry just stored is there')
  const disabled = new BoundedCache<number>(0)
  disabled.set('a', 1, FOREVER, 0)
  t.equal(disabled.size, 0, 'max 0 keeps nothing')
  t.equal(disabled.get('a', 0), undefined)
})

test('expiry: an entry is never served at or after its expiry, and goes then', async (t) => {
  const cache = new BoundedCache<string>(10, seeded(2))
  cache.set('jwt', 'alice', 1000, 0)
  cache.set('other', 'bob', 5000, 0)
  t.equal(cache.get('jwt', 999), 'alice')
  t.equal(cache.get('jwt', 1000), undefined, 'at its expiry')
  t.equal(cache.size, 1, 'the expired entry was removed')
  t.equal(cache.get('other', 4999), 'bob', 'the entry moved into the freed slot is still found')
  t.equal(cache.get('other', 6000), undefined)
  t.equal(cache.size, 0)
  cache.set('again', 'carol', 2000, 0)
  cache.set('again', 'dave', 3000, 0)
  t.equal(cache.size, 1, 'storing a key again replaces it')
  t.equal(cache.get('again', 2500), 'dave', 'with its new value and expiry')
})

test('a full cache replaces an expired entry before a live one', async (t) => {
  const cache = new BoundedCache<number>(EVICTION_SAMPLE, () => 0)
  // random() = 0 always samples slot 0: expired there, it goes first.
  cache.set('old', 0, 10, 0)
  for (let i = 1; i < EVICTION_SAMPLE; i++) cache.set(`live-${i}`, i, FOREVER, 0)
  cache.set('new', 99, FOREVER, 20)
  t.equal(cache.get('old', 0), undefined)
  t.equal(cache.get('new', 20), 99)
  for (let i = 1; i < EVICTION_SAMPLE; i++) t.equal(cache.get(`live-${i}`, 20), i)
})

test('a cyclic working set one entry larger than the cache keeps most of its hits (an LRU keeps none)', async (t) => {
  const max = 1000
  const keys = 1010
  const cache = new BoundedCache<number>(max, seeded(3))
  const hits = cyclicHits((k) => cache.get(k, 0), (k) => cache.set(k, 1, FOREVER, 0), keys, 20)
  const rate = hits / (keys * 20)
  t.ok(rate > 0.8, `hit rate ${(rate * 100).toFixed(1)} %`)
  t.ok(cache.size <= max)

  const lru = new LruMap<string, number>(max)
  const lruHits = cyclicHits((k) => lru.get(k), (k) => lru.set(k, 1), keys, 20)
  t.equal(lruHits, 0, 'the LRU this replaced: 0 hits (the cliff)')
})

test('keys read again and again stay while a stream of new keys passes', async (t) => {
  const cache = new BoundedCache<number>(100, seeded(4))
  for (let i = 0; i < 10; i++) cache.set(`hot-${i}`, i, FOREVER, 0)
  let hotMisses = 0
  for (let n = 0; n < 5000; n++) {
    cache.set(`cold-${n}`, n, FOREVER, 0)
    for (let i = 0; i < 10; i++) {
      if (cache.get(`hot-${i}`, 0) === undefined) {
        hotMisses++
        cache.set(`hot-${i}`, i, FOREVER, 0)
      }
    }
  }
  // A read marks the entry; an insert passes over marked ones (clearing the mark) unless every sampled slot is marked.
  t.ok(hotMisses < 50, `${hotMisses} misses of the hot keys in 50 000 reads`)
})

test('delete forgets one key; the slot moved into its place keeps its own value', async (t) => {
  const cache = new BoundedCache<number>(4, seeded(5))
  for (let i = 0; i < 4; i++) cache.set(`k${i}`, i, FOREVER, 0)
  cache.delete('k1')
  cache.delete('absent')
  t.equal(cache.size, 3)
  t.equal(cache.get('k1', 0), undefined)
  t.same([0, 2, 3].map((i) => cache.get(`k${i}`, 0)), [0, 2, 3], 'the others answer as before')
  cache.set('k4', 4, FOREVER, 0)
  t.equal(cache.size, 4, 'the freed slot is reused before anything is evicted')
  t.same([0, 2, 3, 4].map((i) => cache.get(`k${i}`, 0)), [0, 2, 3, 4])
  cache.delete('k4')
  t.equal(cache.get('k4', 0), undefined, 'deleting the last slot')
  t.equal(cache.size, 3)
})
