import t from 'tap'
import pg from 'pg'
import { PostgresApiKeyStore, PostgresUserStore, POSTGRES_UNAVAILABLE } from '../src/index.js'
import { untilPast, waitUntil } from '../../../test-helpers/wait.js'
import { FAST_SCRYPT, isPromise, ownDatabase, terminateListeners } from './helpers/identity.js'
import { needPostgres } from './helpers/postgres.js'
import { TcpProxy } from './helpers/tcp-proxy.js'

const options = await needPostgres()
const HOUR = 3_600_000
const unavailable = { code: POSTGRES_UNAVAILABLE, statusCode: 503, headers: { 'retry-after': '5' } }

// Issue 15, items 3 and 4, with the database made to go away by a proxy in
// front of it (the shared server stays up; another file tests a second
// cluster).

t.test('the listener cannot reconnect: cached entries are trusted 1 s, then read again', options, async (t) => {
  const { db, url, admin, closeLater } = await ownDatabase(t)
  const proxy = closeLater(await TcpProxy.start(url))
  // One pooled connection kept open (no idle timeout): it still works
  // while the proxy turns new connections, the listener's, away.
  const pool = closeLater(new pg.Pool({ connectionString: proxy.urlFor(url), max: 1, idleTimeoutMillis: 0 }))
  pool.on('error', () => {})
  // Issued before the store under test connects: no notification of it is
  // on its way (one would drop the cached entry and explain too much).
  const writer = await PostgresApiKeyStore.connect({ url })
  const { key, record } = await writer.issue({ label: 'svc' })
  await writer.close()
  const keys = closeLater(await PostgresApiKeyStore.connect({ pool, recheckInterval: HOUR }))

  t.ok(await keys.verify(key))
  await waitUntil(() => !isPromise(keys.verify(key)), { what: 'the key to be cached' })
  proxy.refuse()
  t.equal(await terminateListeners(admin, db.name), 1)
  await waitUntil(() => !keys.listening, { what: 'the store to notice' })
  await admin.query('update gatehouse.api_keys set enabled = false where key_id = $1', [record.keyId])
  const ms = await waitUntil(async () => await keys.verify(key) === null, { what: 'the revoke without a listener', everyMs: 2 })
  t.pass(`the revoke was seen ${ms} ms after the store noticed its listener was gone`)
  t.notOk(keys.listening, 'the listener is still away')

  proxy.forward()
  await waitUntil(() => keys.listening, { what: 'the listener to reconnect by itself' })
  const again = await keys.issue({ label: 'after' })
  t.ok(await keys.verify(again.key))
  await admin.query('update gatehouse.api_keys set enabled = false where key_id = $1', [again.record.keyId])
  await waitUntil(async () => await keys.verify(again.key) === null, { what: 'the notification on the new connection' })
})

t.test('a listener connection gone silent (half-open): trusted 1 s past its last heartbeat, then replaced', options, async (t) => {
  const { url, admin, closeLater } = await ownDatabase(t)
  const writer = await PostgresApiKeyStore.connect({ url })
  const first = await writer.issue({ label: 'svc' })
  const second = await writer.issue({ label: 'svc2' })
  await writer.close()
  const proxy = closeLater(await TcpProxy.start(url))
  const keys = closeLater(await PostgresApiKeyStore.connect({ url: proxy.urlFor(url), recheckInterval: HOUR, connectTimeout: 2000 }))
  t.ok(await keys.verify(first.key))
  await waitUntil(() => !isPromise(keys.verify(first.key)), { what: 'the key to be cached' })

  const closing = await PostgresApiKeyStore.connect({ url: proxy.urlFor(url), connectTimeout: 2000 })
  t.equal(proxy.freezeListeners(), 2, 'the listener connections drop everything, and nobody is told')
  await closing.close()
  t.pass('close() does not wait for a silent listener connection to say goodbye')
  await admin.query('update gatehouse.api_keys set enabled = false where key_id = $1', [first.record.keyId])
  const ms = await waitUntil(async () => await keys.verify(first.key) === null, { what: 'the revoke, its notification lost', everyMs: 2 })
  t.pass(`seen ${ms} ms after the connection went silent, its notification never delivered`)
  await waitUntil(() => !keys.listening, { what: 'the store to count the silent listener as down' })
  await waitUntil(() => keys.listening, { what: 'a new listener connection' })
  t.ok(await keys.verify(second.key))
  await admin.query('update gatehouse.api_keys set enabled = false where key_id = $1', [second.record.keyId])
  await waitUntil(async () => await keys.verify(second.key) === null, { what: 'a notification on the new connection' })
})

t.test('a listener that cannot connect at start is a boot error naming it', options, async (t) => {
  const { url, closeLater } = await ownDatabase(t)
  const proxy = closeLater(await TcpProxy.start(url))
  const pool = closeLater(new pg.Pool({ connectionString: proxy.urlFor(url), max: 1, idleTimeoutMillis: 0 }))
  pool.on('error', () => {})
  await pool.query('select 1')
  proxy.refuse()
  await t.rejects(PostgresUserStore.connect({ pool, scrypt: FAST_SCRYPT }), {
    code: 'GATEHOUSE_POSTGRES_CONNECT',
    message: /^PostgresUserStore \(change listener\) cannot reach PostgreSQL at 127\.0\.0\.1:\d+\/gatehouse_test_/
  })
  t.equal((await pool.query('select 1 as one')).rows[0].one, 1, 'the pool given is left open')
})

t.test('the database away: cached credentials for maxStale, the rest 503, no hang', options, async (t) => {
  const { url, closeLater } = await ownDatabase(t)
  // Written before the stores under test connect, so that no notification
  // of these writes is on its way to them (one would drop a cached entry).
  const writerKeys = await PostgresApiKeyStore.connect({ url })
  const writerUsers = await PostgresUserStore.connect({ url, scrypt: FAST_SCRYPT })
  const cached = await writerKeys.issue({ label: 'cached', tags: 'ops' })
  const uncached = { cut: await writerKeys.issue({ label: 'uncached' }), blackhole: await writerKeys.issue({ label: 'uncached' }) }
  await writerUsers.add('erin', { password: 'pw-erin', tags: 'a' })
  await writerKeys.close()
  await writerUsers.close()

  const proxy = closeLater(await TcpProxy.start(url))
  const settings = { url: proxy.urlFor(url), connectTimeout: 1000, statementTimeout: 1000 }
  const keys = closeLater(await PostgresApiKeyStore.connect({ ...settings, maxStale: HOUR }))
  const users = closeLater(await PostgresUserStore.connect({ ...settings, maxStale: HOUR, scrypt: FAST_SCRYPT }))
  // maxStale short: what it serves stops at that bound.
  const brief = closeLater(await PostgresApiKeyStore.connect({ ...settings, maxStale: 1500 }))

  t.ok(await keys.verify(cached.key))
  t.ok(await brief.verify(cached.key))
  const standing = await users.standing('erin')
  t.equal(await users.standing('nobody'), null)
  t.same(users.cached, { known: 1, unknown: 1 })
  await waitUntil(() => !isPromise(keys.verify(cached.key)), { what: 'the key to be cached' })

  for (const mode of ['cut', 'blackhole'] as const) {
    await t.test(`${mode}: cached answers go on, the rest is a 503`, async (t) => {
      proxy[mode]()
      const cutAt = Date.now()
      await waitUntil(() => !keys.listening && !users.listening, { what: 'the listeners to go' })
      t.match(await keys.verify(cached.key), { keyId: cached.record.keyId, tags: ['ops'] }, 'a cached key still verifies')
      t.equal(await keys.verify(cached.key.slice(0, -2) + 'xx'), null, 'its wrong secrets still fail')
      t.same(await users.standing('erin'), standing, 'a cached standing is still served')
      t.equal(await users.standing('nobody'), null, 'and a cached unknown')
      await t.rejects(Promise.resolve(keys.verify(uncached[mode].key)), unavailable, 'an uncached key: 503')
      await t.rejects(users.standing('frank'), unavailable, 'an uncached standing: 503')
      await t.rejects(users.verify('erin', 'pw-erin'), unavailable, 'a password check always reads: 503')
      await t.rejects(keys.issue({ label: 'x' }), unavailable, 'writes: 503')
      await t.rejects(keys.revoke(uncached[mode].record.keyId), unavailable)
      await t.rejects(users.add('gina', { password: 'pw' }), unavailable)
      await t.rejects(users.setTags('harry', 'x'), unavailable)
      await t.rejects(keys.list(), unavailable)
      await untilPast(cutAt + 1500)
      await t.rejects(Promise.resolve(brief.verify(cached.key)), unavailable, 'past maxStale: 503')
      t.match(await keys.verify(cached.key), { keyId: cached.record.keyId }, 'within its own maxStale: still served')
      await t.rejects(brief.revoke(cached.record.keyId), unavailable)
      await t.rejects(Promise.resolve(brief.verify(cached.key)), unavailable,
        'a write that failed drops the entry it names (it may have committed): 503 until the database answers')

      proxy.forward()
      await waitUntil(() => keys.listening && users.listening && brief.listening, { what: 'the listeners to reconnect' })
      await waitUntil(async () => (await Promise.resolve(brief.verify(cached.key)).catch(() => null)) !== null, { what: 'the short-lived store to read again' })
      t.ok(await keys.verify(uncached.cut.key), 'uncached keys verify again')
      t.ok(await users.verify('erin', 'pw-erin'), 'passwords verify again')
    })
  }
})
