// RFC 9110 §13.1.1 If-Match and §13.1.4 If-Unmodified-Since (412), in the
// order of §13.2.2, for the responses the cache component gives validators.
import { once } from 'node:events'
import t0, { test } from 'tap'
import { build, CONTENT, fixture, IF_MATCH_FAILED, MTIME, MTIME_HTTP, opened } from './helpers/build.js'
import { ifMatchMatches } from '../src/etag.js'

const { file, cleanup } = fixture()
t0.teardown(cleanup)
const TAG = `"${Buffer.byteLength(CONTENT).toString(16)}-${MTIME.getTime().toString(16)}"`
const EARLIER = new Date(MTIME.getTime() - 1000).toUTCString()
const LATER = new Date(MTIME.getTime() + 86_400_000).toUTCString()

type App = Awaited<ReturnType<typeof build>>
async function status (app: App, headers: Record<string, string>, url = '/file', method: 'GET' | 'HEAD' | 'POST' = 'GET') {
  return (await app.inject({ method, url, headers })).statusCode
}

test('§13.1.1 If-Match: the current strong tag, a list holding it, or * → 200 with the body', async (t) => {
  const app = await build(file)
  t.teardown(() => app.close())
  for (const value of [TAG, `"a", ${TAG}`, `"a",${TAG} , "b"`, '*', ' * ']) {
    const res = await app.inject({ url: '/file', headers: { 'if-match': value } })
    t.equal(res.statusCode, 200, value)
    t.equal(res.body, CONTENT)
    t.equal(res.headers.etag, TAG)
  }
})

test('§13.1.1 If-Match that fails → 412 in the errors component\'s shape, with a code', async (t) => {
  const app = await build(file)
  t.teardown(() => app.close())
  const res = await app.inject({ url: '/file', headers: { 'if-match': '"stale"' } })
  t.equal(res.statusCode, 412)
  t.match(res.headers['content-type'], /^application\/json/)
  t.same(res.json(), IF_MATCH_FAILED)
  t.equal(res.headers.etag, TAG, 'the current validators are named')
  t.equal(res.headers['last-modified'], MTIME_HTTP)
  t.equal(res.headers['cache-control'], undefined, 'a 412 must not be stored as the file')
})

test('§8.8.3.2 If-Match uses the strong comparison: a weak tag on either side fails', async (t) => {
  const app = await build(file)
  t.teardown(() => app.close())
  t.equal(await status(app, { 'if-match': `W/${TAG}` }), 412, 'weak request tag vs strong current tag')
  const weak = await build(file, { weakEtags: true })
  t.teardown(() => weak.close())
  const res = await weak.inject('/file')
  t.equal(res.headers.etag, `W/${TAG}`, 'weakEtags marks file ETags weak')
  t.equal(await status(weak, { 'if-match': `W/${TAG}` }), 412, 'weak vs weak: no strong match')
  t.equal(await status(weak, { 'if-match': TAG }), 412, 'strong request tag vs weak current tag')
  t.equal(await status(weak, { 'if-match': '*' }), 200, '* needs no comparison')
  t.equal(await status(weak, { 'if-none-match': TAG }), 304, 'If-None-Match still compares weakly')
})

test('§13.1.1 a malformed If-Match matches nothing → 412 (a precondition that cannot be checked does not pass)', async (t) => {
  const app = await build(file)
  t.teardown(() => app.close())
  const stripped = TAG.slice(1, -1)
  for (const value of [stripped, `"${stripped}`, `${TAG}x`, 'W/', '"', ',,,', '', '*, "a"', `"a" ${TAG}`, TAG.toUpperCase()]) {
    const res = await app.inject({ url: '/file', headers: { 'if-match': value } })
    t.equal(res.statusCode, 412, JSON.stringify(value))
    t.equal(res.json().code, 'GATEHOUSE_CACHE_PRECONDITION_FAILED')
  }
  t.equal(await status(app, { 'if-match': `garbage, ${TAG}` }), 200, 'a malformed member does not hide a valid one')
})

test('§13.1.4 If-Unmodified-Since: not modified after the date → 200; modified after → 412', async (t) => {
  const app = await build(file)
  t.teardown(() => app.close())
  t.equal(await status(app, { 'if-unmodified-since': MTIME_HTTP }), 200, 'equal')
  t.equal(await status(app, { 'if-unmodified-since': LATER }), 200, 'later')
  t.equal(await status(app, { 'if-unmodified-since': 'Tuesday, 04-May-21 03:02:01 GMT' }), 200, 'RFC 850 form')
  const res = await app.inject({ url: '/file', headers: { 'if-unmodified-since': EARLIER } })
  t.equal(res.statusCode, 412, 'one second earlier')
  t.same(res.json(), {
    statusCode: 412,
    code: 'GATEHOUSE_CACHE_PRECONDITION_FAILED',
    error: 'Precondition Failed',
    message: 'Precondition failed: If-Unmodified-Since: the representation was modified after that date'
  })
  t.equal(res.headers['last-modified'], MTIME_HTTP)
  t.equal(await status(app, { 'if-unmodified-since': 'Tue May  4 03:02:00 2021' }), 412, 'asctime form')
})

test('§13.1.4 an If-Unmodified-Since that is not an HTTP-date is ignored (200)', async (t) => {
  const app = await build(file)
  t.teardown(() => app.close())
  for (const value of ['1', 'yesterday', '2020-01-01', 'Tue, 31 Feb 2020 00:00:00 GMT', `${EARLIER}, ${EARLIER}`, 'Tue, 04 May 2021 03:02:00 UTC', '']) {
    const res = await app.inject({ url: '/file', headers: { 'if-unmodified-since': value } })
    t.equal(res.statusCode, 200, JSON.stringify(value))
    t.equal(res.body, CONTENT)
  }
})

test('§13.2.2 order: If-Match first, If-Unmodified-Since only without it, then the 304 headers', async (t) => {
  const app = await build(file)
  t.teardown(() => app.close())
  t.equal(await status(app, { 'if-match': TAG, 'if-unmodified-since': EARLIER }), 200, 'If-Unmodified-Since is ignored when If-Match is present')
  t.equal(await status(app, { 'if-match': '"x"', 'if-unmodified-since': LATER }), 412, 'If-Match decides')
  t.equal(await status(app, { 'if-match': '"x"', 'if-none-match': TAG }), 412, 'step 1 before step 3: 412, not 304')
  t.equal(await status(app, { 'if-unmodified-since': EARLIER, 'if-modified-since': MTIME_HTTP }), 412, 'step 2 before step 4')
  t.equal(await status(app, { 'if-match': TAG, 'if-none-match': TAG }), 304, 'a passed If-Match goes on to If-None-Match')
  t.equal(await status(app, { 'if-unmodified-since': LATER, 'if-modified-since': MTIME_HTTP }), 304)
  t.equal(await status(app, { 'if-match': '*', 'if-none-match': '"x"' }), 200)
})

test('§13.1.1/§13.1.4 HEAD is answered like GET; a 412 releases the unsent file stream', async (t) => {
  const app = await build(file)
  t.teardown(() => app.close())
  const head = await app.inject({ method: 'HEAD', url: '/file', headers: { 'if-match': '"x"' } })
  t.equal(head.statusCode, 412)
  t.equal(head.body, '')
  t.equal(await status(app, { 'if-match': TAG }, '/file', 'HEAD'), 200)
  const before = opened.length
  const res = await app.inject({ url: '/stream', headers: { 'if-unmodified-since': EARLIER } })
  t.equal(res.statusCode, 412)
  t.equal(res.json().code, 'GATEHOUSE_CACHE_PRECONDITION_FAILED')
  const stream = opened[before]!
  t.ok(stream.destroyed, 'destroyed')
  if (!stream.closed) await once(stream, 'close')
  t.ok(stream.closed, 'its descriptor is closed')
})

test('unsafe methods are not evaluated: the handler has already run when onSend sees the response', async (t) => {
  const app = await build(file)
  t.teardown(() => app.close())
  const res = await app.inject({ method: 'POST', url: '/file', headers: { 'if-match': '"x"', 'if-unmodified-since': EARLIER } })
  t.equal(res.statusCode, 200)
  t.equal(res.body, CONTENT)
  t.equal(res.headers.etag, undefined)
})

test('a route\'s own validators are checked too; without any, If-Match changes nothing', async (t) => {
  const app = await build(file, true, (app) => {
    app.get('/versioned', async (_req, reply) => reply.header('etag', '"v42"').send({ version: 42 }))
    app.get('/dated', async (_req, reply) => reply.header('last-modified', MTIME_HTTP).send({ version: 42 }))
  })
  t.teardown(() => app.close())
  t.equal(await status(app, { 'if-match': '"v42"' }, '/versioned'), 200)
  t.equal(await status(app, { 'if-match': '"v41"' }, '/versioned'), 412)
  t.equal(await status(app, { 'if-match': '"v41"' }, '/dated'), 412, 'no current ETag: only * matches')
  t.equal(await status(app, { 'if-match': '*' }, '/dated'), 200)
  t.equal(await status(app, { 'if-unmodified-since': EARLIER }, '/dated'), 412)
  const json = await app.inject({ url: '/json', headers: { 'if-match': '"x"', 'if-unmodified-since': EARLIER } })
  t.equal(json.statusCode, 200, 'no validator on the response: nothing to compare')
  t.same(json.json(), { hello: 'world' })
})

test('ifMatchMatches, unit by unit', async (t) => {
  t.ok(ifMatchMatches('"a"', '"a"'))
  t.notOk(ifMatchMatches('"a"', 'W/"a"'))
  t.notOk(ifMatchMatches('W/"a"', '"a"'))
  t.ok(ifMatchMatches('*', undefined))
  t.ok(ifMatchMatches('*', 'W/"a"'))
  t.notOk(ifMatchMatches('"a"', undefined))
  t.notOk(ifMatchMatches('"a"', 'a'), 'a malformed current tag matches nothing')
  t.ok(ifMatchMatches('W/"b", "a"', '"a"'))
})
