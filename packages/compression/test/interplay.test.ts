// cache and compression on one route through middlewareChain: the tie at
// order 900 is broken by name, so cache decides a 304 before compression
// looks at the body.
import { createReadStream, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import t0, { test } from 'tap'
import Fastify from 'fastify'
import { HttpError, middlewareChain } from '@fastify-gatehouse/core'
import { errorsPlugin } from '@fastify-gatehouse/errors'
import { cachePlugin } from '@fastify-gatehouse/cache'
import { compressionPlugin } from '@fastify-gatehouse/compression'

const dir = mkdtempSync(join(tmpdir(), 'gatehouse-interplay-'))
t0.teardown(() => rmSync(dir, { recursive: true, force: true }))
const FILE = join(dir, 'app.js')
const SOURCE = 'console.log("gatehouse");\n'.repeat(200)
writeFileSync(FILE, SOURCE)
const MTIME = new Date(Date.UTC(2022, 0, 2, 3, 4, 5))
utimesSync(FILE, MTIME, MTIME)
const TAG = `"${Buffer.byteLength(SOURCE).toString(16)}-${MTIME.getTime().toString(16)}"`

async function build () {
  const app = Fastify()
  const chain = await middlewareChain(app, { middleware: { cache: true, compression: true } }, { components: [errorsPlugin, cachePlugin, compressionPlugin] })
  app.get('/app.js', async (request, reply) => {
    request.scope.filePath = FILE
    return reply.type('application/javascript').send(createReadStream(FILE))
  })
  app.get('/off.js', { config: { compression: false } }, async (request, reply) => {
    request.scope.filePath = FILE
    return reply.type('application/javascript').send(createReadStream(FILE))
  })
  app.get('/fail', async () => { throw new HttpError(422, `bad input: ${'x'.repeat(1000)}`) })
  app.get('/crash', async () => { throw new Error('secret internals') })
  await app.ready()
  return { app, chain }
}

test('the chain orders cache before compression', async (t) => {
  const { app, chain } = await build()
  t.teardown(() => app.close())
  t.same(chain.map((c) => c.name), ['errors', 'cache', 'compression'])
})

test('a 200 is compressed, and the file ETag turns weak', async (t) => {
  const { app } = await build()
  t.teardown(() => app.close())
  const res = await app.inject({ url: '/app.js', headers: { 'accept-encoding': 'gzip' } })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['content-encoding'], 'gzip')
  t.equal(res.headers.etag, `W/${TAG}`)
  t.equal(res.headers['cache-control'], 'public, max-age=3600')
  t.equal(res.headers['last-modified'], MTIME.toUTCString())
  t.equal(res.headers.vary, 'Accept-Encoding')
  t.equal(gunzipSync(res.rawPayload).toString(), SOURCE)
  const identity = await app.inject('/app.js')
  t.equal(identity.headers.etag, TAG, 'uncompressed: strong')
  t.equal(identity.body, SOURCE)
})

test('a 206 carries the Vary: Accept-Encoding its 200 carries (RFC 9110 §15.3.7), uncompressed; none where compression is off', async (t) => {
  const { app } = await build()
  t.teardown(() => app.close())
  for (const headers of [{ 'accept-encoding': 'gzip' }, {}]) {
    const res = await app.inject({ url: '/app.js', headers: { range: 'bytes=0-9', ...headers } })
    t.equal(res.statusCode, 206, JSON.stringify(headers))
    t.equal(res.headers['content-range'], `bytes 0-9/${Buffer.byteLength(SOURCE)}`)
    t.equal(res.headers['content-encoding'], undefined, 'the range is of the identity body')
    t.equal(res.headers.vary, 'Accept-Encoding')
    t.equal(res.headers.etag, TAG, 'the identity body\'s strong tag')
    t.equal(res.body, SOURCE.slice(0, 10))
  }
  const full = await app.inject({ url: '/off.js', headers: { 'accept-encoding': 'gzip' } })
  t.equal(full.statusCode, 200)
  t.equal(full.headers.vary, undefined, 'compression off: the 200 does not vary')
  const part = await app.inject({ url: '/off.js', headers: { 'accept-encoding': 'gzip', range: 'bytes=0-9' } })
  t.equal(part.statusCode, 206)
  t.equal(part.headers.vary, undefined, 'nor does its 206')
  t.equal(part.body, SOURCE.slice(0, 10))
})

test('an encoded 200 advertises no Accept-Ranges (its ranges would be of other bytes); the identity 200 and HEAD say what their GET does (D-COMPRESSION-16)', async (t) => {
  const { app } = await build()
  t.teardown(() => app.close())
  const gzip = { 'accept-encoding': 'gzip' }
  const encoded = await app.inject({ url: '/app.js', headers: gzip })
  t.equal(encoded.headers['content-encoding'], 'gzip')
  t.equal(encoded.headers['accept-ranges'], undefined, 'no range of the gzip bytes is ever served')
  const head = await app.inject({ method: 'HEAD', url: '/app.js', headers: gzip })
  t.equal(head.headers['content-encoding'], 'gzip')
  t.equal(head.headers['accept-ranges'], undefined, 'HEAD as its GET')
  const identity = await app.inject({ url: '/app.js' })
  t.equal(identity.headers['content-encoding'], undefined)
  t.equal(identity.headers['accept-ranges'], 'bytes', 'the identity bytes can be ranged')
  const off = await app.inject({ url: '/off.js', headers: gzip })
  t.equal(off.headers['accept-ranges'], 'bytes', 'compression off: the 200 is the identity one')
})

test('a 416 carries no Vary: Accept-Encoding: it is no representation, is not stored, and does not depend on the coding (D-COMPRESSION-17)', async (t) => {
  const { app } = await build()
  t.teardown(() => app.close())
  for (const headers of [{ 'accept-encoding': 'gzip' }, {}]) {
    const res = await app.inject({ url: '/app.js', headers: { range: `bytes=${Buffer.byteLength(SOURCE)}-`, ...headers } })
    t.equal(res.statusCode, 416, JSON.stringify(headers))
    t.equal(res.json().code, 'GATEHOUSE_CACHE_RANGE_NOT_SATISFIABLE')
    t.equal(res.headers['content-range'], `bytes */${Buffer.byteLength(SOURCE)}`)
    t.equal(res.headers['cache-control'], undefined, 'never stored')
    t.equal(res.headers.vary, undefined)
    t.equal(res.headers['content-encoding'], undefined)
  }
})

test('304 before compression: no body, no Content-Encoding, the validators kept', async (t) => {
  const { app } = await build()
  t.teardown(() => app.close())
  // A client revalidates with the weak tag it got from the compressed 200.
  for (const headers of [{ 'if-none-match': `W/${TAG}` }, { 'if-none-match': TAG }, { 'if-modified-since': MTIME.toUTCString() }]) {
    const res = await app.inject({ url: '/app.js', headers: { 'accept-encoding': 'gzip', ...headers } })
    t.equal(res.statusCode, 304, JSON.stringify(headers))
    t.equal(res.rawPayload.length, 0)
    t.equal(res.headers['content-encoding'], undefined)
    t.equal(res.headers['content-length'], undefined)
    t.equal(res.headers.etag, `W/${TAG}`, 'the tag the compressed 200 carried')
    t.equal(res.headers['cache-control'], 'public, max-age=3600')
    t.equal(res.headers.vary, 'Accept-Encoding')
  }
  const stale = await app.inject({ url: '/app.js', headers: { 'accept-encoding': 'gzip', 'if-none-match': '"old"' } })
  t.equal(stale.statusCode, 200)
  t.equal(gunzipSync(stale.rawPayload).toString(), SOURCE)
})

test('HEAD through cache and compression: the 200 has the GET\'s headers, the 304 no length', async (t) => {
  const { app } = await build()
  t.teardown(() => app.close())
  const gzip = { 'accept-encoding': 'gzip' }
  const get = await app.inject({ url: '/app.js', headers: gzip })
  const head = await app.inject({ method: 'HEAD', url: '/app.js', headers: gzip })
  t.equal(head.statusCode, 200)
  t.equal(head.rawPayload.length, 0)
  for (const name of ['content-encoding', 'etag', 'last-modified', 'cache-control', 'vary', 'content-length']) {
    t.equal(head.headers[name], get.headers[name], `HEAD 200 ${name}`)
  }
  for (const headers of [{ 'if-none-match': `W/${TAG}` }, { 'if-modified-since': MTIME.toUTCString() }]) {
    const revalidated = await app.inject({ method: 'HEAD', url: '/app.js', headers: { ...gzip, ...headers } })
    t.equal(revalidated.statusCode, 304, JSON.stringify(headers))
    t.equal(revalidated.rawPayload.length, 0)
    t.equal(revalidated.headers['content-length'], undefined, 'no length: the 200\'s is the encoded one, unknown here')
    t.equal(revalidated.headers.etag, `W/${TAG}`)
    t.equal(revalidated.headers.vary, 'Accept-Encoding')
  }
})

test('with the errors component: error responses are answered sanely', async (t) => {
  const { app } = await build()
  t.teardown(() => app.close())
  const fail = await app.inject({ url: '/fail', headers: { 'accept-encoding': 'gzip', 'if-none-match': '*' } })
  t.equal(fail.statusCode, 422, 'no 304 for an error')
  t.equal(fail.headers.etag, undefined)
  t.equal(fail.headers['cache-control'], undefined)
  t.equal(fail.headers['content-encoding'], 'gzip', 'a large error body is compressed like any other')
  t.match(JSON.parse(gunzipSync(fail.rawPayload).toString()), { statusCode: 422, message: /^bad input: x+$/ })
  const crash = await app.inject({ url: '/crash', headers: { 'accept-encoding': 'gzip' } })
  t.equal(crash.statusCode, 500)
  t.equal(crash.headers['content-encoding'], undefined, 'small: sent as is')
  t.notMatch(crash.body, /secret internals/)
  t.equal(crash.json().statusCode, 500)
  const missing = await app.inject({ url: '/nope', headers: { 'accept-encoding': 'gzip', 'if-none-match': '*' } })
  t.equal(missing.statusCode, 404)
})
