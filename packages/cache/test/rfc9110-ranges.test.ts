// RFC 9110 §14 byte ranges of file responses, and §13.1.5 If-Range.
import { once } from 'node:events'
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http'
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t0, { test } from 'tap'
import { build, CONTENT, fixture, MTIME, MTIME_HTTP, opened } from './helpers/build.js'
import { ifRangeHolds, parseRange } from '../src/range.js'

const { file, cleanup } = fixture()
t0.teardown(cleanup)
const LENGTH = Buffer.byteLength(CONTENT)
const TAG = `"${LENGTH.toString(16)}-${MTIME.getTime().toString(16)}"`

// A 300 KiB file whose every byte depends on its offset, for the real-socket tests.
const bigDir = mkdtempSync(join(tmpdir(), 'gatehouse-cache-ranges-'))
t0.teardown(() => rmSync(bigDir, { recursive: true, force: true }))
const BIG = join(bigDir, 'big.bin')
const BIG_BYTES = Buffer.alloc(300 * 1024, 0)
for (let i = 0; i < BIG_BYTES.length; i++) BIG_BYTES[i] = (i * 31 + (i >> 8)) & 0xff
writeFileSync(BIG, BIG_BYTES)
utimesSync(BIG, MTIME, MTIME)
const BIG_TAG = `"${BIG_BYTES.length.toString(16)}-${MTIME.getTime().toString(16)}"`

type App = Awaited<ReturnType<typeof build>>
async function get (app: App, headers: Record<string, string>, url = '/file', method: 'GET' | 'HEAD' = 'GET') {
  return app.inject({ method, url, headers })
}

test('§14.1.2 one byte range of a file response → 206 with Content-Range, Content-Length and those bytes', async (t) => {
  const app = await build(file)
  t.teardown(() => app.close())
  for (const [range, start, end] of [
    ['bytes=0-9', 0, 9],
    ['bytes=10-', 10, LENGTH - 1],
    ['bytes=-5', LENGTH - 5, LENGTH - 1],
    ['bytes=5-99999', 5, LENGTH - 1],
    ['bytes=-99999', 0, LENGTH - 1],
    [`bytes=${LENGTH - 1}-${LENGTH - 1}`, LENGTH - 1, LENGTH - 1],
    ['BYTES = 3-4', -1, -1],
    ['Bytes=3-4', 3, 4]
  ] as const) {
    for (const url of ['/file', '/stream']) {
      const res = await get(app, { range }, url)
      if (start === -1) {
        t.equal(res.statusCode, 200, `${url} ${range}: not a valid Range, ignored`)
        continue
      }
      t.equal(res.statusCode, 206, `${url} ${range}`)
      t.equal(res.headers['content-range'], `bytes ${start}-${end}/${LENGTH}`, `${url} ${range}`)
      t.equal(res.headers['content-length'], String(end - start + 1))
      t.equal(res.body, CONTENT.slice(start, end + 1), `${url} ${range}: the bytes`)
      t.equal(res.headers.etag, TAG)
      t.equal(res.headers['last-modified'], MTIME_HTTP)
      t.equal(res.headers['accept-ranges'], 'bytes')
    }
  }
})

test('§14.2 a 200 for a file response advertises Accept-Ranges: bytes, HEAD too; HEAD ignores Range', async (t) => {
  const app = await build(file)
  t.teardown(() => app.close())
  const res = await get(app, {})
  t.equal(res.statusCode, 200)
  t.equal(res.headers['accept-ranges'], 'bytes')
  const head = await get(app, { range: 'bytes=0-9' }, '/file', 'HEAD')
  t.equal(head.statusCode, 200, 'range handling is defined for GET only')
  t.equal(head.headers['accept-ranges'], 'bytes')
  t.equal(head.headers['content-range'], undefined)
  const json = await get(app, { range: 'bytes=0-1' }, '/json')
  t.equal(json.statusCode, 200, 'not a file response: no ranges')
  t.equal(json.headers['accept-ranges'], undefined)
})

test('§14.2 a Range that is malformed, of another unit or of several ranges is ignored: the whole 200', async (t) => {
  const app = await build(file)
  t.teardown(() => app.close())
  for (const range of ['bytes=9-0', 'bytes=a-b', 'bytes=-', 'bytes=', 'bytes 0-9', 'items=0-9', 'bytes=0-1,5-6', 'bytes=0-1, -3', 'bytes=1.5-2', 'bytes=--1', '']) {
    const res = await get(app, { range })
    t.equal(res.statusCode, 200, JSON.stringify(range))
    t.equal(res.body, CONTENT)
    t.equal(res.headers['content-range'], undefined)
  }
})

test('§15.5.17 an unsatisfiable range → 416 with Content-Range: bytes */length and a code', async (t) => {
  const app = await build(file)
  t.teardown(() => app.close())
  for (const range of [`bytes=${LENGTH}-`, `bytes=${LENGTH}-${LENGTH + 10}`, 'bytes=-0', 'bytes=99999999999999999999-']) {
    for (const url of ['/file', '/stream']) {
      const before = opened.length
      const res = await get(app, { range }, url)
      t.equal(res.statusCode, 416, `${url} ${range}`)
      t.equal(res.headers['content-range'], `bytes */${LENGTH}`)
      t.same(res.json(), {
        statusCode: 416,
        code: 'GATEHOUSE_CACHE_RANGE_NOT_SATISFIABLE',
        error: 'Range Not Satisfiable',
        message: `Range not satisfiable: the representation has ${LENGTH} bytes`
      })
      t.equal(res.headers['cache-control'], undefined)
      if (url === '/stream') t.ok(opened[before]?.destroyed, 'the unsent stream is released')
    }
  }
})

test('§13.1.5 If-Range: the current strong ETag or the exact Last-Modified keeps the range', async (t) => {
  const app = await build(file)
  t.teardown(() => app.close())
  for (const ifRange of [TAG, MTIME_HTTP, 'Tuesday, 04-May-21 03:02:01 GMT']) {
    const res = await get(app, { range: 'bytes=0-4', 'if-range': ifRange })
    t.equal(res.statusCode, 206, ifRange)
    t.equal(res.body, CONTENT.slice(0, 5))
    t.equal(res.headers['content-range'], `bytes 0-4/${LENGTH}`)
  }
})

test('§13.1.5 If-Range that does not hold → the whole 200, never a 412', async (t) => {
  const app = await build(file)
  t.teardown(() => app.close())
  for (const ifRange of ['"stale"', `W/${TAG}`, `${TAG}, "x"`, new Date(MTIME.getTime() + 1000).toUTCString(),
    new Date(MTIME.getTime() - 1000).toUTCString(), 'yesterday', TAG.slice(1, -1), '*']) {
    const res = await get(app, { range: 'bytes=0-4', 'if-range': ifRange })
    t.equal(res.statusCode, 200, ifRange)
    t.equal(res.body, CONTENT)
    t.equal(res.headers['content-range'], undefined)
    t.equal(res.headers.etag, TAG)
  }
  const weak = await build(file, { weakEtags: true })
  t.teardown(() => weak.close())
  t.equal((await get(weak, { range: 'bytes=0-4', 'if-range': TAG })).statusCode, 200, 'a weak current ETag never matches If-Range')
  t.equal((await get(weak, { range: 'bytes=0-4', 'if-range': `W/${TAG}` })).statusCode, 200)
  t.equal((await get(weak, { range: 'bytes=0-4', 'if-range': MTIME_HTTP })).statusCode, 206, 'the date still works')
  t.equal((await get(app, { 'if-range': '"stale"' })).statusCode, 200, 'If-Range without Range is ignored')
})

test('§13.2.2 order: 412 and 304 come before the range', async (t) => {
  const app = await build(file)
  t.teardown(() => app.close())
  t.equal((await get(app, { range: 'bytes=0-4', 'if-none-match': TAG })).statusCode, 304)
  t.equal((await get(app, { range: 'bytes=0-4', 'if-match': '"x"' })).statusCode, 412)
  t.equal((await get(app, { range: `bytes=${LENGTH}-`, 'if-match': '"x"' })).statusCode, 412, '412 before 416')
  const passed = await get(app, { range: 'bytes=0-4', 'if-match': TAG, 'if-none-match': '"x"' })
  t.equal(passed.statusCode, 206)
  t.equal(passed.body, CONTENT.slice(0, 5))
})

test('acceptRanges: false, a route\'s Accept-Ranges: none, and streams that are not the whole file: no ranges', async (t) => {
  const off = await build(file, { acceptRanges: false })
  t.teardown(() => off.close())
  const res = await get(off, { range: 'bytes=0-4' })
  t.equal(res.statusCode, 200)
  t.equal(res.body, CONTENT)
  t.equal(res.headers['accept-ranges'], undefined)
  t.equal(res.headers.etag, TAG, 'the validators stay')
  const { createReadStream } = await import('node:fs')
  const app = await build(file, true, (app) => {
    app.get('/none', async (request, reply) => {
      request.scope.filePath = file
      return reply.header('accept-ranges', 'none').type('text/plain').send(CONTENT)
    })
    app.get('/part', async (_request, reply) => reply.type('text/plain').send(createReadStream(file, { start: 10 })))
  })
  t.teardown(() => app.close())
  const none = await get(app, { range: 'bytes=0-4' }, '/none')
  t.equal(none.statusCode, 200)
  t.equal(none.headers['accept-ranges'], 'none')
  const part = await get(app, { range: 'bytes=0-4' }, '/part')
  t.equal(part.statusCode, 200, 'a stream of part of the file is not the file')
  t.equal(part.body, CONTENT.slice(10))
  t.equal(part.headers['accept-ranges'], undefined)
})

test('a Buffer body is cut itself, whatever the file holds', async (t) => {
  const app = await build(file, true, (app) => {
    app.get('/upper', async (request, reply) => {
      request.scope.filePath = file
      return reply.type('text/plain').send(Buffer.from(CONTENT.toUpperCase() + '!'))
    })
  })
  t.teardown(() => app.close())
  const res = await get(app, { range: '-3' }, '/upper')
  t.equal(res.statusCode, 200, '"-3" has no unit')
  const tail = await get(app, { range: 'bytes=-3' }, '/upper')
  t.equal(tail.statusCode, 206)
  t.equal(tail.body, '\n!'.padStart(3, 'D'))
  t.equal(tail.headers['content-range'], `bytes ${LENGTH - 2}-${LENGTH}/${LENGTH + 1}`)
})

/** One request over a real socket; the body as bytes. */
async function fetchRaw (port: number, path: string, headers: Record<string, string>): Promise<{ status: number, headers: IncomingHttpHeaders, body: Buffer }> {
  const req = httpRequest({ host: '127.0.0.1', port, path, headers })
  req.end()
  const [res] = await once(req, 'response') as [import('node:http').IncomingMessage]
  const chunks: Buffer[] = []
  for await (const chunk of res) chunks.push(chunk as Buffer)
  return { status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }
}

test('over a real socket: Range + If-Range against a real 300 KiB file, buffered and streamed', async (t) => {
  const app = await build(BIG)
  t.teardown(() => app.close())
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as import('node:net').AddressInfo
  for (const path of ['/file', '/stream']) {
    const full = await fetchRaw(port, path, {})
    t.equal(full.status, 200, path)
    t.equal(full.headers.etag, BIG_TAG)
    t.equal(full.headers['accept-ranges'], 'bytes')
    t.ok(full.body.equals(BIG_BYTES), `${path}: the whole file`)

    // Resuming a download: the rest of the file, if it is still the same one.
    const start = 123_457
    const resumed = await fetchRaw(port, path, { range: `bytes=${start}-`, 'if-range': BIG_TAG })
    t.equal(resumed.status, 206, `${path}: resumed`)
    t.equal(resumed.headers['content-range'], `bytes ${start}-${BIG_BYTES.length - 1}/${BIG_BYTES.length}`)
    t.equal(resumed.headers['content-length'], String(BIG_BYTES.length - start))
    t.ok(resumed.body.equals(BIG_BYTES.subarray(start)), `${path}: exactly the requested bytes`)

    const middle = await fetchRaw(port, path, { range: 'bytes=70000-70009', 'if-range': MTIME_HTTP })
    t.equal(middle.status, 206)
    t.ok(middle.body.equals(BIG_BYTES.subarray(70000, 70010)))

    // The file the client had is not this one: the whole new file, 200.
    const changed = await fetchRaw(port, path, { range: `bytes=${start}-`, 'if-range': '"0-0"' })
    t.equal(changed.status, 200, `${path}: If-Range failed`)
    t.equal(changed.headers['content-range'], undefined)
    t.ok(changed.body.equals(BIG_BYTES), `${path}: the whole file again`)

    const unsatisfiable = await fetchRaw(port, path, { range: `bytes=${BIG_BYTES.length}-` })
    t.equal(unsatisfiable.status, 416)
    t.equal(unsatisfiable.headers['content-range'], `bytes */${BIG_BYTES.length}`)
    t.equal(JSON.parse(unsatisfiable.body.toString()).code, 'GATEHOUSE_CACHE_RANGE_NOT_SATISFIABLE')
  }
})

test('parseRange and ifRangeHolds, unit by unit', async (t) => {
  t.same(parseRange('bytes=0-0', 1), { start: 0, end: 0 })
  t.equal(parseRange('bytes=0-0', 0), 'unsatisfiable', 'nothing to select in an empty representation')
  t.equal(parseRange('bytes=-1', 0), 'unsatisfiable')
  t.same(parseRange('bytes=0-', 10), { start: 0, end: 9 })
  t.same(parseRange('bytes=\t2-3 ', 10), { start: 2, end: 3 })
  t.equal(parseRange('bytes=3-2', 10), undefined)
  t.same(parseRange('bytes=0-99999999999999999999', 10), { start: 0, end: 9 }, 'a huge last-pos is clamped')
  const now = Date.UTC(2030, 0, 1)
  const modified = MTIME.getTime()
  t.ok(ifRangeHolds(TAG, TAG, modified, now))
  t.notOk(ifRangeHolds(TAG, undefined, modified, now))
  t.notOk(ifRangeHolds(`W/${TAG}`, `W/${TAG}`, modified, now))
  t.ok(ifRangeHolds(MTIME_HTTP, undefined, modified + 999, now), 'compared at one-second precision')
  t.notOk(ifRangeHolds(MTIME_HTTP, TAG, NaN, now), 'no Last-Modified: a date cannot match')
  t.notOk(ifRangeHolds(MTIME_HTTP, TAG, modified, modified + 500), 'a Last-Modified in the current second is weak (§8.8.2.2)')
  t.ok(ifRangeHolds(MTIME_HTTP, TAG, modified, modified + 1000))
})
