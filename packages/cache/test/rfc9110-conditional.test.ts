// RFC 9110 §13: conditional requests, as the cache component answers them.
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import t0, { test } from 'tap'
import { build, CONTENT, fixture, MTIME, MTIME_HTTP, opened } from './helpers/build.js'
import { ifNoneMatchMatches, opaqueTag } from '../src/etag.js'
import { parseHttpDate } from '../src/http-date.js'

const { file, cleanup } = fixture()
t0.teardown(cleanup)
const TAG = `"${Buffer.byteLength(CONTENT).toString(16)}-${MTIME.getTime().toString(16)}"`

async function status (app: Awaited<ReturnType<typeof build>>, headers: Record<string, string>, url = '/file', method: 'GET' | 'HEAD' = 'GET') {
  return (await app.inject({ method, url, headers })).statusCode
}

test('§13.1.2 If-None-Match: a matching tag gives 304 with no body and the validators kept', async (t) => {
  const app = await build(file)
  t.teardown(() => app.close())
  const res = await app.inject({ url: '/file', headers: { 'if-none-match': TAG } })
  t.equal(res.statusCode, 304)
  t.equal(res.body, '')
  t.equal(res.headers.etag, TAG)
  t.equal(res.headers['last-modified'], MTIME_HTTP)
  t.equal(res.headers['cache-control'], 'public, max-age=3600')
  t.equal(res.headers['content-length'], undefined)
})

test('§13.1.2 If-None-Match uses the weak comparison (§8.8.3.2)', async (t) => {
  const app = await build(file)
  t.teardown(() => app.close())
  t.equal(await status(app, { 'if-none-match': `W/${TAG}` }), 304, 'weak request tag vs strong current tag')
  const weakRoute = await build(file, true, (app) => {
    app.get('/weak', async (_req, reply) => reply.header('etag', 'W/"v7"').send('body'))
  })
  t.teardown(() => weakRoute.close())
  t.equal(await status(weakRoute, { 'if-none-match': '"v7"' }, '/weak'), 304, 'strong request tag vs weak current tag')
  t.equal(await status(weakRoute, { 'if-none-match': 'W/"v7"' }, '/weak'), 304)
  t.equal(await status(weakRoute, { 'if-none-match': '"V7"' }, '/weak'), 200, 'opaque tags are case-sensitive')
})

test('§13.1.2 If-None-Match: lists, with any spacing, match when one member does', async (t) => {
  const app = await build(file)
  t.teardown(() => app.close())
  t.equal(await status(app, { 'if-none-match': `"a", ${TAG}, "b"` }), 304)
  t.equal(await status(app, { 'if-none-match': `"a",${TAG}` }), 304)
  t.equal(await status(app, { 'if-none-match': ` W/"x" ,\tW/${TAG} ` }), 304)
  t.equal(await status(app, { 'if-none-match': '"a", "b"' }), 200)
  t.equal(await status(app, { 'if-none-match': '"a,b", "c"' }), 200, 'a comma inside a tag does not split it')
})

test('§13.1.2 If-None-Match: * matches any current representation', async (t) => {
  const app = await build(file)
  t.teardown(() => app.close())
  t.equal(await status(app, { 'if-none-match': '*' }), 304)
  t.equal(await status(app, { 'if-none-match': ' * ' }), 304)
  t.equal(await status(app, { 'if-none-match': '*, "a"' }), 200, '* is only valid alone')
})

test('§13.1.2 a malformed If-None-Match matches nothing: 200, never an error', async (t) => {
  const app = await build(file)
  t.teardown(() => app.close())
  const stripped = TAG.slice(1, -1)
  for (const value of [stripped, `"${stripped}`, `${TAG}x`, 'W/', '"', '""x', 'W/ "a"', ',,,', '"a" "b"', `"bad tag", ${TAG}x`]) {
    const res = await app.inject({ url: '/file', headers: { 'if-none-match': value } })
    t.equal(res.statusCode, 200, JSON.stringify(value))
    t.equal(res.body, CONTENT)
  }
  t.equal(await status(app, { 'if-none-match': `garbage, ${TAG}` }), 304, 'a malformed member does not hide a valid one after it')
})

test('§13.1.3 If-Modified-Since: not modified since the date gives 304', async (t) => {
  const app = await build(file)
  t.teardown(() => app.close())
  t.equal(await status(app, { 'if-modified-since': MTIME_HTTP }), 304, 'equal')
  t.equal(await status(app, { 'if-modified-since': new Date(MTIME.getTime() + 86_400_000).toUTCString() }), 304, 'later')
  t.equal(await status(app, { 'if-modified-since': new Date(MTIME.getTime() - 1000).toUTCString() }), 200, 'one second earlier')
  const res = await app.inject({ url: '/file', headers: { 'if-modified-since': MTIME_HTTP } })
  t.equal(res.body, '')
  t.equal(res.headers['last-modified'], MTIME_HTTP)
  t.equal(res.headers.etag, TAG)
})

test('§5.6.7 HTTP-date: the obsolete RFC 850 and asctime forms are accepted', async (t) => {
  const app = await build(file)
  t.teardown(() => app.close())
  t.equal(await status(app, { 'if-modified-since': 'Tuesday, 04-May-21 03:02:01 GMT' }), 304)
  t.equal(await status(app, { 'if-modified-since': 'Tue May  4 03:02:01 2021' }), 304)
  t.equal(await status(app, { 'if-modified-since': 'Tue May  4 03:02:00 2021' }), 200)
})

test('§13.1.3 an invalid If-Modified-Since is ignored (200, never an error)', async (t) => {
  const app = await build(file)
  t.teardown(() => app.close())
  for (const value of ['1', 'yesterday', '2030-01-01', 'Tue, 31 Feb 2030 00:00:00 GMT', 'Tue, 04 May 2099 25:00:00 GMT',
    `${MTIME_HTTP}, ${MTIME_HTTP}`, 'Tue, 04 May 2099 03:02:01 UTC', '']) {
    const res = await app.inject({ url: '/file', headers: { 'if-modified-since': value } })
    t.equal(res.statusCode, 200, JSON.stringify(value))
    t.equal(res.body, CONTENT)
  }
})

test('§13.2.2 If-Modified-Since is ignored when If-None-Match is present', async (t) => {
  const app = await build(file)
  t.teardown(() => app.close())
  t.equal(await status(app, { 'if-none-match': '"other"', 'if-modified-since': MTIME_HTTP }), 200)
  t.equal(await status(app, { 'if-none-match': TAG, 'if-modified-since': 'Thu, 01 Jan 1970 00:00:00 GMT' }), 304)
})

test('§13.1.2/§13.1.3 HEAD is answered like GET', async (t) => {
  const app = await build(file)
  t.teardown(() => app.close())
  const buffered = await app.inject({ method: 'HEAD', url: '/file', headers: { 'if-none-match': TAG } })
  t.equal(buffered.statusCode, 304)
  t.equal(buffered.body, '')
  t.equal(buffered.headers.etag, TAG)
  t.equal(buffered.headers['content-length'], undefined, 'as the GET 304: no length')
  const before = opened.length
  const streamed = await app.inject({ method: 'HEAD', url: '/stream', headers: { 'if-modified-since': MTIME_HTTP } })
  t.equal(streamed.statusCode, 304)
  t.equal(streamed.body, '')
  t.equal(streamed.headers['last-modified'], MTIME_HTTP)
  t.ok(opened[before]?.destroyed, 'the unsent stream is released')
  t.equal(await status(app, { 'if-none-match': '"other"' }, '/stream', 'HEAD'), 200)
})

test('§15.4.5 a 304 for a streamed file sends no body and closes the unsent stream', async (t) => {
  const app = await build(file)
  t.teardown(() => app.close())
  const before = opened.length
  const res = await app.inject({ url: '/stream', headers: { 'if-none-match': TAG } })
  t.equal(res.statusCode, 304)
  t.equal(res.body, '')
  t.equal(res.headers.etag, TAG)
  const stream = opened[before]!
  t.ok(stream.destroyed, 'destroyed')
  if (!stream.closed) await once(stream, 'close')
  t.ok(stream.closed, 'its descriptor is closed')
})

test('without a validator on the response, preconditions change nothing', async (t) => {
  const app = await build(file)
  t.teardown(() => app.close())
  const res = await app.inject({ url: '/json', headers: { 'if-none-match': '*', 'if-modified-since': MTIME_HTTP } })
  t.equal(res.statusCode, 200)
  t.same(res.json(), { hello: 'world' })
})

test('validators a JSON route sets itself are honoured in the default mode', async (t) => {
  const app = await build(file, true, (app) => {
    app.get('/versioned', async (_req, reply) => reply.header('etag', '"v42"').send({ version: 42 }))
  })
  t.teardown(() => app.close())
  const res = await app.inject({ url: '/versioned', headers: { 'if-none-match': '"v41", "v42"' } })
  t.equal(res.statusCode, 304)
  t.equal(res.body, '')
  t.equal(res.headers.etag, '"v42"')
  t.equal(res.headers['cache-control'], undefined, 'Cache-Control is for file responses only')
})

test('entity-tag and HTTP-date parsing, unit by unit', async (t) => {
  t.equal(opaqueTag('"a"'), '"a"')
  t.equal(opaqueTag('W/"a"'), '"a"')
  t.equal(opaqueTag('a'), undefined)
  t.equal(opaqueTag('"a b"'), undefined, 'SP is not an etagc')
  t.equal(opaqueTag('""'), '""', 'the empty tag is valid')
  t.ok(ifNoneMatchMatches('""', '""'))
  t.notOk(ifNoneMatchMatches('"a"', undefined))
  t.ok(ifNoneMatchMatches('*', undefined), '* needs no tag')
  t.equal(parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT'), Date.UTC(1994, 10, 6, 8, 49, 37))
  t.equal(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT'), Date.UTC(1994, 10, 6, 8, 49, 37))
  t.equal(parseHttpDate('Sun Nov  6 08:49:37 1994'), Date.UTC(1994, 10, 6, 8, 49, 37))
  t.equal(parseHttpDate('Sun, 06 Nov 1994 08:49:60 GMT'), Date.UTC(1994, 10, 6, 8, 49, 59), 'a leap second')
  t.ok(Number.isNaN(parseHttpDate('sun, 06 nov 1994 08:49:37 gmt')), 'case-sensitive, as the grammar is')
  t.ok(Number.isNaN(parseHttpDate('Sun, 6 Nov 1994 08:49:37 GMT')))
  t.ok(Number.isNaN(parseHttpDate('Sun, 06 Foo 1994 08:49:37 GMT')))
  t.equal(readFileSync(file, 'utf8'), CONTENT)
})
