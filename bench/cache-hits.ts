// Hit rates of auth's verified-credential cache (BoundedCache) against the
// LRU it replaced (core's LruMap read with get), for cyclic, uniform and
// Zipf-like access to working sets of 0.5× to 10× the cache size. Each miss
// stores the key, as the JWT and Basic caches do. Seeded: the same table
// every run.
//   node --import tsx cache-hits.ts [--size 1000] [--requests 200000] [--write]
import { parseArgs } from 'node:util'
import { LruMap } from '@fastify-gatehouse/core'
import { BoundedCache } from '../packages/auth/src/bounded-cache.js'
import { publish, wholeNumber } from './lib/cli.js'

const USAGE = 'cache-hits.ts [--size N] [--requests N] [--write]'
const { values } = parseArgs({
  options: {
    size: { type: 'string', default: '1000' },
    requests: { type: 'string', default: '200000' },
    write: { type: 'boolean', default: false }
  }
})
const size = wholeNumber('size', values.size, 10, 100_000, USAGE)
const requests = wholeNumber('requests', values.requests, 1000, 10_000_000, USAGE)

function xorshift (seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s ^= s << 13; s >>>= 0
    s ^= s >>> 17
    s ^= s << 5; s >>>= 0
    return s / 4294967296
  }
}

// Zipf (s = 1) over n keys, by inverting the cumulative weights.
function zipf (n: number, random: () => number): () => number {
  const cumulative = new Float64Array(n)
  let total = 0
  for (let i = 0; i < n; i++) cumulative[i] = total += 1 / (i + 1)
  return () => {
    const r = random() * total
    let lo = 0
    let hi = n - 1
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (cumulative[mid]! < r) lo = mid + 1
      else hi = mid
    }
    return lo
  }
}

type Pattern = 'cyclic' | 'uniform' | 'zipf'
interface Cache { get: (k: string) => unknown, set: (k: string) => void }

/** Hits in the second half of the requests (the first fills the cache), in %. */
function hitRate (cache: Cache, pattern: Pattern, keys: number): number {
  const random = xorshift(7)
  const next = pattern === 'zipf' ? zipf(keys, random) : pattern === 'uniform' ? () => Math.floor(random() * keys) : (i: number) => i % keys
  let hits = 0
  for (let i = 0; i < requests; i++) {
    const key = `token-${next(i)}`
    const hit = cache.get(key) !== undefined
    if (!hit) cache.set(key)
    if (hit && i >= requests / 2) hits++
  }
  return 100 * hits / (requests - Math.ceil(requests / 2))
}

const lru = (): Cache => {
  const map = new LruMap<string, number>(size)
  return { get: (k) => map.get(k), set: (k) => map.set(k, 1) }
}
const sampled = (): Cache => {
  const cache = new BoundedCache<number>(size, xorshift(11))
  return { get: (k) => cache.get(k, 0), set: (k) => cache.set(k, 1, Number.POSITIVE_INFINITY, 0) }
}

const factors = [0.5, 1, 1.01, 2, 10]
const rows: string[] = []
for (const pattern of ['cyclic', 'uniform', 'zipf'] as const) {
  for (const factor of factors) {
    const keys = Math.round(size * factor)
    rows.push(`| ${pattern} | ${factor}× (${keys}) | ${hitRate(lru(), pattern, keys).toFixed(1)} | ${hitRate(sampled(), pattern, keys).toFixed(1)} |`)
  }
}
const table = [
  '### The verified-credential cache: hit rates, LRU against sampled eviction',
  '',
  `Command: \`pnpm --filter @fastify-gatehouse/bench exec node --import tsx cache-hits.ts --size ${size} --requests ${requests}\` · ${new Date().toISOString().slice(0, 10)} · Node ${process.version} · cache of ${size} entries, ${requests} requests per cell, hits counted over the second half, seeded generators.`,
  '',
  '| access | working set (keys) | before: LRU (`LruMap`) % hits | after: `BoundedCache` % hits |',
  '| --- | --- | ---: | ---: |',
  ...rows
].join('\n')
console.log(table)
if (values.write) await publish('cache-hits', table)
