import t from 'tap'
import { HttpError } from '@fastify-gatehouse/core'
import { LISTENER_BOUND_MS, type Coverage } from '../src/change-listener.js'
import { ConfirmedCache, type CacheSettings } from '../src/confirmed-cache.js'
import { POSTGRES_UNAVAILABLE } from '../src/errors.js'

// The cache's rules on a clock of the test's own (no database, no timers):
// when an entry is trusted, when it is read again, when a stale one is
// served. D-POSTGRES-ID2, D-POSTGRES-ID4, D-POSTGRES-ID5.

const SETTINGS: CacheSettings = { size: 3, negativeSize: 2, recheckInterval: 30_000, maxStale: 60_000 }
const away = (): HttpError => new HttpError(503, 'database unavailable', { code: POSTGRES_UNAVAILABLE })

function setup (settings: CacheSettings = SETTINGS): {
  cache: ConfirmedCache<string>
  clock: { now: number }
  listener: { coverage: Coverage | undefined }
  rows: Map<string, string>
  reads: string[]
  failing: { error: Error | undefined }
  load: (key: string) => Promise<string | null>
} {
  const clock = { now: 1000 }
  const listener: { coverage: Coverage | undefined } = { coverage: { since: 0, heard: 1000 } }
  const rows = new Map<string, string>()
  const reads: string[] = []
  const failing: { error: Error | undefined } = { error: undefined }
  const cache = new ConfirmedCache<string>(settings, () => listener.coverage, () => clock.now)
  const load = async (key: string): Promise<string | null> => {
    reads.push(key)
    if (failing.error !== undefined) throw failing.error
    return rows.get(key) ?? null
  }
  return { cache, clock, listener, rows, reads, failing, load }
}

t.test('while the listener vouches (heartbeats answered), an entry is trusted for recheckInterval', async (t) => {
  const { cache, clock, listener, rows, reads, load } = setup()
  rows.set('a', 'A1')
  t.equal(await cache.get('a', load), 'A1')
  rows.set('a', 'A2')
  for (const at of [1000, 10_000, 30_999]) {
    clock.now = at
    listener.coverage = { since: 0, heard: at - 400 }
    t.equal(cache.peek('a'), 'A1', `trusted at ${at}`)
  }
  clock.now = 31_000
  listener.coverage = { since: 0, heard: 30_700 }
  t.equal(cache.peek('a'), undefined, 'recheckInterval after its fetch: read again')
  t.equal(await cache.get('a', load), 'A2')
  t.same(reads, ['a', 'a'])
})

t.test('a silent or lost listener: an entry is trusted until 1 s after the last heartbeat it answered', async (t) => {
  const { cache, clock, listener, load, rows } = setup()
  rows.set('a', 'A')
  await cache.get('a', load)
  listener.coverage = { since: 0, heard: 1200 }
  clock.now = 1200 + LISTENER_BOUND_MS - 1
  t.equal(cache.peek('a'), 'A')
  clock.now = 1200 + LISTENER_BOUND_MS
  t.equal(cache.peek('a'), undefined, 'no heartbeat answered for 1 s: not trusted')
})

t.test('a listener that reconnected does not vouch for entries fetched before it LISTENed', async (t) => {
  const { cache, clock, listener, load, rows } = setup()
  rows.set('a', 'A')
  await cache.get('a', load)
  listener.coverage = { since: 1500, heard: 1600 }
  clock.now = 1600
  t.equal(cache.peek('a'), 'A', 'still within 1 s of its own fetch')
  clock.now = 1000 + LISTENER_BOUND_MS
  listener.coverage = { since: 1500, heard: 1900 }
  t.equal(cache.peek('a'), undefined, '1 s after its fetch: read again')
  await cache.get('a', load)
  clock.now = 20_000
  listener.coverage = { since: 1500, heard: 19_900 }
  t.equal(cache.peek('a'), 'A', 'read after the new LISTEN: the new connection vouches for it')
})

t.test('with no listener at all, entries are trusted 1 s from their fetch', async (t) => {
  const { cache, clock, listener, load, rows } = setup()
  listener.coverage = undefined
  rows.set('a', 'A')
  await cache.get('a', load)
  clock.now = 1000 + LISTENER_BOUND_MS - 1
  t.equal(cache.peek('a'), 'A')
  clock.now = 1000 + LISTENER_BOUND_MS
  t.equal(cache.peek('a'), undefined)
})

t.test('invalidate drops an entry; a read under way when it comes is answered but not cached', async (t) => {
  const { cache, rows, reads, load } = setup()
  rows.set('a', 'old')
  let release: () => void = () => {}
  const slow = async (key: string): Promise<string | null> => {
    reads.push(key)
    const value = rows.get(key) ?? null
    await new Promise<void>((resolve) => { release = resolve })
    return value
  }
  const pending = cache.get('a', slow)
  rows.set('a', 'new')
  cache.invalidate('a')
  release()
  t.equal(await pending, 'old', 'the caller gets what was read')
  t.equal(cache.peek('a'), undefined, 'but it is not cached: it may predate the change')
  t.equal(await cache.get('a', load), 'new', 'the next get reads again')
  t.same(reads, ['a', 'a'])
})

t.test('concurrent misses for one key share one read; an invalidated read is not joined', async (t) => {
  const { cache, rows, reads, load } = setup()
  rows.set('a', 'A')
  const answers = await Promise.all(Array.from({ length: 20 }, () => cache.get('a', load)))
  t.ok(answers.every((value) => value === 'A'))
  t.same(reads, ['a'])

  cache.invalidate('a')
  const first = cache.get('a', load)
  cache.invalidate('a')
  rows.set('a', 'A2')
  const second = cache.get('a', load)
  t.same([await first, await second], ['A', 'A2'], 'a get after the invalidation reads again, not joining the older read')
  t.same(reads, ['a', 'a', 'a'])
  t.equal(cache.peek('a'), 'A2', 'and only the newer read is cached')
})

t.test('the database away: a cached entry is served until maxStale after its last confirmation', async (t) => {
  const { cache, clock, listener, rows, reads, failing, load } = setup()
  rows.set('a', 'A')
  await cache.get('a', load)
  listener.coverage = { since: 0, heard: 5000 }
  failing.error = away()
  clock.now = 6000
  t.equal(await cache.get('a', load), 'A', 'the read failed: the entry is served')
  t.equal(reads.length, 2)
  clock.now = 7000
  t.equal(await cache.get('a', load), 'A', 'meanwhile served at once, with a read behind it')
  await t.rejects(cache.get('b', load), { code: POSTGRES_UNAVAILABLE }, 'an uncached key: the 503')
  clock.now = 5000 + 60_000 - 1
  t.equal(await cache.get('a', load), 'A', 'just within maxStale of the last heartbeat that vouched for it')
  clock.now = 5000 + 60_000
  await t.rejects(cache.get('a', load), { code: POSTGRES_UNAVAILABLE }, 'past maxStale: the 503')
  failing.error = undefined
  rows.set('a', 'A2')
  t.equal(await cache.get('a', load), 'A2', 'back: read again')
})

t.test('a stale entry is not served for an error that is not the database being away', async (t) => {
  const { cache, clock, rows, failing, load } = setup()
  rows.set('a', 'A')
  await cache.get('a', load)
  clock.now = 5000
  failing.error = new Error('syntax error at or near "selec"')
  await t.rejects(cache.get('a', load), { message: /syntax error/ })
})

t.test('maxStale 0 serves nothing stale', async (t) => {
  const { cache, clock, rows, failing, load } = setup({ ...SETTINGS, maxStale: 0 })
  rows.set('a', 'A')
  await cache.get('a', load)
  clock.now = 5000
  failing.error = away()
  await t.rejects(cache.get('a', load), { code: POSTGRES_UNAVAILABLE })
})

t.test('bounded: names without a row never evict those with one', async (t) => {
  const { cache, rows, reads, load } = setup()
  for (const key of ['a', 'b', 'c', 'd']) rows.set(key, key.toUpperCase())
  for (const key of ['a', 'b', 'c', 'd']) await cache.get(key, load)
  t.same(cache.size, { known: 3, unknown: 0 }, 'the least recently used went')
  t.equal(cache.peek('a'), undefined)
  t.equal(cache.peek('d'), 'D')
  for (let i = 0; i < 100; i++) t.equal(await cache.get(`ghost-${i}`, load), null)
  t.same(cache.size, { known: 3, unknown: 2 })
  t.same(['b', 'c', 'd'].map((key) => cache.peek(key)), ['B', 'C', 'D'], 'every entry with a row survived the flood')
  t.equal(cache.peek('ghost-99'), null, 'the latest unknown name is cached as null')
  t.equal(reads.filter((key) => key.startsWith('ghost-')).length, 100)
  rows.set('ghost-99', 'now known')
  cache.invalidate('ghost-99')
  t.equal(await cache.get('ghost-99', load), 'now known', 'a name that gains a row moves across')
  t.same(cache.size, { known: 3, unknown: 1 })
  cache.clear()
  t.same(cache.size, { known: 0, unknown: 0 })
})
