// Request bodies sent with a Content-Encoding, decoded before the body
// parser (requestDecompression), with a limit on the decoded size.
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib'
import { test } from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import { middlewareChain } from '@fastify-gatehouse/core'
import { errorsPlugin } from '@fastify-gatehouse/errors'
import { compressionPlugin, type CompressionOptions } from '@fastify-gatehouse/compression'
import { text } from './helpers/build.js'

const DOC = { note: text(3000), n: 42 }
const JSON_BODY = JSON.stringify(DOC)

/**
 * An app with errors and compression; `POST /echo` answers the parsed JSON
 * body and `POST /raw` (application/octet-stream) the byte count and the
 * first bytes of the Buffer the parser made.
 */
async function build (options: CompressionOptions = { requestDecompression: true }, routes: (app: FastifyInstance) => void = () => {}, fastifyOptions: { bodyLimit?: number } = {}): Promise<FastifyInstance> {
  const app = Fastify(fastifyOptions)
  await middlewareChain(app, { middleware: { compression: options as Record<string, unknown> } }, { components: [errorsPlugin, compressionPlugin] })
  app.post('/echo', async (request) => request.body)
  app.addContentTypeParser('application/octet-stream', { parseAs: 'buffer' }, (_req, body, done) => done(null, body))
  app.post('/raw', async (request) => {
    const body = request.body as Buffer
    return { length: body.length, head: body.subarray(0, 4).toString('hex') }
  })
  routes(app)
  await app.ready()
  return app
}

function post (app: FastifyInstance, body: Buffer | string, headers: Record<string, string>, url = '/echo') {
  return app.inject({ method: 'POST', url, payload: body, headers: { 'content-type': 'application/json', ...headers } })
}

test('gzip, deflate (the zlib format), br and x-gzip bodies are decoded before the JSON parser', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  for (const [coding, encoded] of [
    ['gzip', gzipSync(JSON_BODY)], ['deflate', deflateSync(JSON_BODY)], ['br', brotliCompressSync(JSON_BODY)],
    ['x-gzip', gzipSync(JSON_BODY)], ['GZip', gzipSync(JSON_BODY)], [' gzip ', gzipSync(JSON_BODY)]
  ] as const) {
    const res = await post(app, encoded, { 'content-encoding': coding })
    t.equal(res.statusCode, 200, coding)
    t.same(res.json(), DOC, `${coding}: the body round-trips`)
  }
  const plain = await post(app, JSON_BODY, {})
  t.same(plain.json(), DOC, 'no Content-Encoding: as sent')
  const identity = await post(app, JSON_BODY, { 'content-encoding': 'identity' })
  t.same(identity.json(), DOC, 'identity: as sent')
})

test('off by default: an encoded body reaches the parser as sent', async (t) => {
  const app = await build({})
  t.teardown(() => app.close())
  const res = await post(app, gzipSync(JSON_BODY), { 'content-encoding': 'gzip' })
  t.equal(res.statusCode, 400)
  t.equal(res.json().code, 'FST_ERR_CTP_INVALID_JSON_BODY')
  const raw = await post(app, gzipSync(JSON_BODY), { 'content-encoding': 'gzip', 'content-type': 'application/octet-stream' }, '/raw')
  t.equal(raw.json().head.slice(0, 4), '1f8b', 'the gzip bytes themselves')
})

test('an unsupported coding, or several, is 415 with the codings accepted', async (t) => {
  const app = await build({ requestDecompression: { encodings: ['gzip', 'br'] } })
  t.teardown(() => app.close())
  for (const coding of ['deflate', 'zstd', 'compress', 'gzip, br', 'gzip,gzip', '\u00e9t\u00e9']) {
    const res = await post(app, gzipSync(JSON_BODY), { 'content-encoding': coding })
    t.equal(res.statusCode, 415, coding)
    const body = res.json()
    t.equal(body.code, 'GATEHOUSE_COMPRESSION_UNSUPPORTED_ENCODING', coding)
    t.match(body.message, /^request Content-Encoding .* is not supported; send one of: gzip, br$/)
    t.equal(res.headers['accept-encoding'], 'gzip, br', 'RFC 9110 §12.5.3: the codings the route decodes')
  }
  const long = await post(app, 'x', { 'content-encoding': 'z'.repeat(500) })
  t.equal(long.statusCode, 415)
  t.ok(long.json().message.length < 200, 'the caller\'s value is cut short in the message')
})

test('a corrupt or truncated body is 400 with its code', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  const gz = gzipSync(JSON_BODY)
  for (const [coding, body, what] of [
    ['gzip', Buffer.from('not gzip at all, just text'), 'not gzip'],
    ['gzip', gz.subarray(0, gz.length - 10), 'truncated'],
    ['gzip', Buffer.concat([gz, Buffer.from('trailing garbage')]), 'trailing garbage'],
    ['deflate', deflateRawSync(JSON_BODY), 'raw deflate is not the deflate coding'],
    ['deflate', gz, 'gzip sent as deflate'],
    ['br', Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff]), 'not brotli'],
    ['gzip', Buffer.alloc(0), 'empty']
  ] as const) {
    const res = await post(app, body, { 'content-encoding': coding })
    t.equal(res.statusCode, 400, what)
    t.equal(res.json().code, 'GATEHOUSE_COMPRESSION_INVALID_BODY', what)
    t.equal(res.json().message, `request body is not valid ${coding} data`, what)
  }
})

test('a gzip bomb (10 MB of zeros in ~10 KB) is refused with 413 at the limit', async (t) => {
  const bomb = gzipSync(Buffer.alloc(10 * 1024 * 1024), { level: 9 })
  t.ok(bomb.length < 20 * 1024, `the bomb is small (${bomb.length} bytes)`)
  const app = await build()
  t.teardown(() => app.close())
  const res = await post(app, bomb, { 'content-encoding': 'gzip' })
  t.equal(res.statusCode, 413)
  t.equal(res.json().code, 'GATEHOUSE_COMPRESSION_BODY_TOO_LARGE')
  t.equal(res.json().message, 'request body decodes to more than 1048576 bytes', 'the default limit: Fastify\'s bodyLimit')
  t.equal(res.headers.connection, 'close', 'the rest of the upload is not read')
  const br = await post(app, brotliCompressSync(Buffer.alloc(64 * 1024 * 1024)), { 'content-encoding': 'br' })
  t.equal(br.statusCode, 413, 'a Brotli bomb (64 MB in a few hundred bytes)')
  t.equal(br.json().code, 'GATEHOUSE_COMPRESSION_BODY_TOO_LARGE')
})

test('concatenated gzip members count together; a nested bomb is decoded one layer only', async (t) => {
  const app = await build({ requestDecompression: { maxSize: 512 * 1024 } })
  t.teardown(() => app.close())
  const member = gzipSync(Buffer.alloc(100 * 1024), { level: 9 })
  const ok = await post(app, Buffer.concat(Array.from({ length: 5 }, () => member)), { 'content-encoding': 'gzip', 'content-type': 'application/octet-stream' }, '/raw')
  t.equal(ok.statusCode, 200)
  t.equal(ok.json().length, 500 * 1024, 'five members, each decoded')
  const many = await post(app, Buffer.concat(Array.from({ length: 200 }, () => member)), { 'content-encoding': 'gzip', 'content-type': 'application/octet-stream' }, '/raw')
  t.equal(many.statusCode, 413, '200 members of 100 KB: 20 MB, refused')
  t.equal(many.json().code, 'GATEHOUSE_COMPRESSION_BODY_TOO_LARGE')
  const inner = gzipSync(Buffer.alloc(50 * 1024 * 1024), { level: 9 })
  const nested = gzipSync(inner, { level: 9 })
  const res = await post(app, nested, { 'content-encoding': 'gzip', 'content-type': 'application/octet-stream' }, '/raw')
  t.equal(res.statusCode, 200, 'one coding, one layer')
  t.same(res.json(), { length: inner.length, head: inner.subarray(0, 4).toString('hex') }, 'the route gets the inner gzip member as bytes')
})

test('maxSize: a body at the limit passes, one byte more is 413; the route\'s bodyLimit is the default', async (t) => {
  const app = await build({ requestDecompression: { maxSize: 10_000 } }, (app) => {
    app.post('/small', { bodyLimit: 2000 }, async (request) => ({ length: (request.body as Buffer).length }))
  })
  t.teardown(() => app.close())
  const exact = await post(app, gzipSync(Buffer.alloc(10_000, 'a')), { 'content-encoding': 'gzip', 'content-type': 'application/octet-stream' }, '/raw')
  t.equal(exact.statusCode, 200)
  t.equal(exact.json().length, 10_000)
  const over = await post(app, gzipSync(Buffer.alloc(10_001, 'a')), { 'content-encoding': 'gzip', 'content-type': 'application/octet-stream' }, '/raw')
  t.equal(over.statusCode, 413)
  t.equal(over.json().message, 'request body decodes to more than 10000 bytes')
  // Fastify's own bodyLimit still caps what its parsers take: the smaller wins.
  const capped = await post(app, gzipSync(Buffer.alloc(3000, 'a')), { 'content-encoding': 'gzip', 'content-type': 'application/octet-stream' }, '/small')
  t.equal(capped.statusCode, 413)
  t.equal(capped.json().code, 'FST_ERR_CTP_BODY_TOO_LARGE')

  const byRoute = await build({ requestDecompression: true }, (app) => {
    app.post('/small', { bodyLimit: 2000 }, async (request) => ({ length: (request.body as Buffer).length }))
  }, { bodyLimit: 5000 })
  t.teardown(() => byRoute.close())
  const routeLimit = await post(byRoute, gzipSync(Buffer.alloc(2001, 'a')), { 'content-encoding': 'gzip', 'content-type': 'application/octet-stream' }, '/small')
  t.equal(routeLimit.statusCode, 413)
  t.equal(routeLimit.json().message, 'request body decodes to more than 2000 bytes', 'the route\'s bodyLimit')
  const appLimit = await post(byRoute, gzipSync(Buffer.alloc(5001, 'a')), { 'content-encoding': 'gzip', 'content-type': 'application/octet-stream' }, '/raw')
  t.equal(appLimit.json().message, 'request body decodes to more than 5000 bytes', 'the app\'s bodyLimit')
  const fits = await post(byRoute, gzipSync(Buffer.alloc(5000, 'a')), { 'content-encoding': 'gzip', 'content-type': 'application/octet-stream' }, '/raw')
  t.equal(fits.json().length, 5000)
})

test('Content-Length is the encoded length: checked against the bytes received, not the decoded ones', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  const gz = gzipSync(JSON_BODY)
  const right = await post(app, gz, { 'content-encoding': 'gzip', 'content-length': String(gz.length) })
  t.equal(right.statusCode, 200)
  t.same(right.json(), DOC)
  const wrong = await post(app, gz, { 'content-encoding': 'gzip', 'content-length': String(gz.length - 1) })
  t.equal(wrong.statusCode, 400, 'a declared length that is not the bytes sent')
  t.equal(wrong.json().code, 'FST_ERR_CTP_INVALID_CONTENT_LENGTH')
  const decodedLength = await post(app, gz, { 'content-encoding': 'gzip', 'content-length': String(JSON_BODY.length) })
  t.equal(decodedLength.statusCode, 400, 'the decoded length is not the Content-Length')
})

test('a stream parser gets the decoded stream, and the limit holds there too (Fastify counts nothing for it)', async (t) => {
  let delivered = 0
  const app = await build({ requestDecompression: { maxSize: 64 * 1024 } }, (app) => {
    app.register(async (scoped) => {
      scoped.addContentTypeParser('application/x-stream', (_request, payload, done) => {
        payload.on('data', (chunk: Buffer) => { delivered += chunk.length })
        payload.on('end', () => done(null, { streamed: delivered }))
        payload.on('error', (err) => done(err, undefined))
      })
      scoped.post('/stream', async (request) => request.body)
    })
  })
  t.teardown(() => app.close())
  const small = await post(app, gzipSync(Buffer.alloc(1000)), { 'content-encoding': 'gzip', 'content-type': 'application/x-stream' }, '/stream')
  t.same(small.json(), { streamed: 1000 })
  delivered = 0
  const bomb = await post(app, gzipSync(Buffer.alloc(50 * 1024 * 1024)), { 'content-encoding': 'gzip', 'content-type': 'application/x-stream' }, '/stream')
  t.equal(bomb.statusCode, 413)
  t.equal(bomb.json().code, 'GATEHOUSE_COMPRESSION_BODY_TOO_LARGE')
  t.ok(delivered <= 64 * 1024, `the parser got no more than the limit (${delivered} bytes)`)
})

test('GET and HEAD bodies are not read; a 404 or an unparsed type with a corrupt body does not crash', async (t) => {
  const app = await build({ requestDecompression: true }, (app) => {
    app.get('/get', async () => ({ ok: true }))
  })
  t.teardown(() => app.close())
  const get = await app.inject({ method: 'GET', url: '/get', headers: { 'content-encoding': 'zstd' } })
  t.equal(get.statusCode, 200, 'no body to decode: the coding is not looked at')
  const missing = await post(app, Buffer.from('garbage, not gzip'), { 'content-encoding': 'gzip', 'content-type': 'application/x-unknown' }, '/nowhere')
  t.equal(missing.statusCode, 404)
  const missingBomb = await post(app, gzipSync(Buffer.alloc(10 * 1024 * 1024)), { 'content-encoding': 'gzip', 'content-type': 'application/octet-stream' }, '/nowhere')
  t.equal(missingBomb.statusCode, 404, 'no route: the body is not decoded')
  const unparsed = await post(app, Buffer.from('garbage, not gzip'), { 'content-encoding': 'gzip', 'content-type': 'application/x-unknown' })
  t.equal(unparsed.statusCode, 415)
  t.equal(unparsed.json().code, 'FST_ERR_CTP_INVALID_MEDIA_TYPE')
  // The process is still here, and answers.
  t.same((await post(app, gzipSync(JSON_BODY), { 'content-encoding': 'gzip' })).json(), DOC)
})

test('per route: config.compression false leaves the body alone; a route can turn decoding on or change it', async (t) => {
  const on = await build({ requestDecompression: true }, (app) => {
    app.post('/as-sent', { config: { compression: false } }, async (request) => ({ head: (request.body as Buffer).subarray(0, 2).toString('hex') }))
    app.post('/gzip-only', { config: { compression: { requestDecompression: { encodings: ['gzip'] } } } }, async (request) => request.body)
    app.post('/no-decoding', { config: { compression: { requestDecompression: false } } }, async (request) => ({ head: (request.body as Buffer).subarray(0, 2).toString('hex') }))
  })
  t.teardown(() => on.close())
  const octets = { 'content-encoding': 'gzip', 'content-type': 'application/octet-stream' }
  t.same((await post(on, gzipSync('abc'), octets, '/as-sent')).json(), { head: '1f8b' })
  t.same((await post(on, gzipSync('abc'), octets, '/no-decoding')).json(), { head: '1f8b' })
  t.same((await post(on, gzipSync(JSON_BODY), { 'content-encoding': 'gzip' }, '/gzip-only')).json(), DOC)
  const br = await post(on, brotliCompressSync(JSON_BODY), { 'content-encoding': 'br' }, '/gzip-only')
  t.equal(br.statusCode, 415)
  t.equal(br.headers['accept-encoding'], 'gzip')

  const off = await build({}, (app) => {
    app.post('/upload', { config: { compression: { requestDecompression: { maxSize: 5000 } } } }, async (request) => ({ length: (request.body as Buffer).length }))
    app.route({ method: ['POST', 'PUT'], url: '/both', config: { compression: { requestDecompression: true } }, handler: async (request) => request.body })
  })
  t.teardown(() => off.close())
  const upload = await post(off, gzipSync(Buffer.alloc(5000)), octets, '/upload')
  t.same(upload.json(), { length: 5000 }, 'decoded on the route that asks, with the plugin\'s decoding off')
  const tooBig = await post(off, gzipSync(Buffer.alloc(5001)), octets, '/upload')
  t.equal(tooBig.statusCode, 413)
  t.equal(tooBig.json().code, 'GATEHOUSE_COMPRESSION_BODY_TOO_LARGE')
  t.equal((await post(off, gzipSync(JSON_BODY), { 'content-encoding': 'gzip' })).statusCode, 400, 'other routes: not decoded')
  for (const method of ['POST', 'PUT'] as const) {
    const res = await off.inject({ method, url: '/both', payload: gzipSync(JSON_BODY), headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } })
    t.same(res.json(), DOC, `${method} /both`)
  }
})

test('concurrent encoded uploads each get their own body', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  const codings = ['gzip', 'deflate', 'br'] as const
  const encode = { gzip: gzipSync, deflate: deflateSync, br: brotliCompressSync }
  const results = await Promise.all(Array.from({ length: 48 }, (_, i) => {
    const doc = { i, note: text(1000 + i * 37) }
    const coding = codings[i % 3]!
    return post(app, encode[coding](JSON.stringify(doc)), { 'content-encoding': coding }).then((res) => [res.json(), doc])
  }))
  for (const [got, sent] of results) t.same(got, sent)
})
