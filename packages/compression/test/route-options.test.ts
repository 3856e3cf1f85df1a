// Per-route `config.compression`, X-No-Compression, and bodies the route
// compressed itself.
import { createReadStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib'
import t0, { test } from 'tap'
import Fastify from 'fastify'
import { trackRouteRules } from '@fastify-gatehouse/core'
import { compressionPlugin } from '@fastify-gatehouse/compression'
import { build, chainApp, text } from './helpers/build.js'

const GZIP = { 'accept-encoding': 'gzip' }

test('config.compression: false leaves a route alone: no coding, no Vary, the strong ETag kept, 304 too', async (t) => {
  const app = await build({}, (app) => {
    app.get('/secret', { config: { compression: false } }, async (_req, reply) => reply.type('text/html').header('etag', '"s"').send(text(5000)))
    app.get('/same', { config: { compression: false } }, async (_req, reply) => reply.code(304).type('text/plain').header('etag', '"x"').send())
    app.get('/other', async (_req, reply) => reply.type('text/html').header('etag', '"o"').send(text(5000)))
  })
  t.teardown(() => app.close())
  for (const method of ['GET', 'HEAD'] as const) {
    const res = await app.inject({ method, url: '/secret', headers: GZIP })
    t.equal(res.statusCode, 200)
    t.equal(res.headers['content-encoding'], undefined, method)
    t.equal(res.headers.vary, undefined, `${method}: nothing varies`)
    t.equal(res.headers.etag, '"s"')
    t.equal(res.headers['content-length'], '5000')
  }
  t.equal((await app.inject({ url: '/secret', headers: GZIP })).body, text(5000))
  const same = await app.inject({ url: '/same', headers: GZIP })
  t.equal(same.statusCode, 304)
  t.equal(same.headers.etag, '"x"', 'the 304 of a route left alone keeps its strong tag')
  t.equal(same.headers.vary, undefined)
  const other = await app.inject({ url: '/other', headers: GZIP })
  t.equal(other.headers['content-encoding'], 'gzip', 'other routes as before')
  t.equal(gunzipSync(other.rawPayload).toString(), text(5000))
})

test('config.compression: an object replaces the plugin\'s options it names, for that route only', async (t) => {
  const app = await build({ minimumSize: 1000, encodings: ['gzip'] }, (app) => {
    app.get('/small', { config: { compression: { minimumSize: 10 } } }, async (_req, reply) => reply.type('text/plain').send(text(100)))
    app.get('/br', { config: { compression: { encodings: ['br', 'deflate'] } } }, async (_req, reply) => reply.type('text/plain').send(text(5000)))
    app.get('/fast', { config: { compression: { compressionLevel: 1 } } }, async (_req, reply) => reply.type('text/plain').send(JSON.stringify(Array.from({ length: 400 }, (_, i) => ({ id: i, v: (i * 7919) % 1009 })))))
    app.get('/slow', async (_req, reply) => reply.type('text/plain').send(JSON.stringify(Array.from({ length: 400 }, (_, i) => ({ id: i, v: (i * 7919) % 1009 })))))
    app.get('/optout', { config: { compression: { noCompressionHeader: true } } }, async (_req, reply) => reply.type('text/plain').send(text(5000)))
  })
  t.teardown(() => app.close())
  const small = await app.inject({ url: '/small', headers: GZIP })
  t.equal(small.headers['content-encoding'], 'gzip', 'the route\'s minimumSize')
  t.equal(gunzipSync(small.rawPayload).toString(), text(100))
  t.equal((await app.inject({ url: '/text?n=100', headers: GZIP })).headers['content-encoding'], undefined, 'the plugin\'s elsewhere')
  const br = await app.inject({ url: '/br', headers: { 'accept-encoding': 'gzip, br' } })
  t.equal(br.headers['content-encoding'], 'br')
  t.equal(brotliDecompressSync(br.rawPayload).toString(), text(5000))
  t.equal((await app.inject({ url: '/br', headers: GZIP })).headers['content-encoding'], undefined, 'the route offers no gzip')
  t.equal((await app.inject({ url: '/text?n=5000', headers: { 'accept-encoding': 'br' } })).headers['content-encoding'], undefined, 'other routes offer gzip only')
  const fast = await app.inject({ url: '/fast', headers: GZIP })
  const slow = await app.inject({ url: '/slow', headers: GZIP })
  t.ok(fast.rawPayload.length > slow.rawPayload.length, `level 1 (${fast.rawPayload.length}) > level 6 (${slow.rawPayload.length})`)
  t.equal(gunzipSync(fast.rawPayload).toString(), gunzipSync(slow.rawPayload).toString())
  t.equal((await app.inject({ url: '/optout', headers: { ...GZIP, 'x-no-compression': '1' } })).headers['content-encoding'], undefined, 'the route honours X-No-Compression')
  t.equal((await app.inject({ url: '/text?n=5000', headers: { ...GZIP, 'x-no-compression': '1' } })).headers['content-encoding'], 'gzip', 'the plugin does not, by default')
})

test('invalid config.compression values fail the boot, naming the route and the option', async (t) => {
  for (const [value, message] of [
    [true, /^compression options of route GET \/bad: config\.compression: expected false or an object of options$/],
    ['gzip', /route GET \/bad: config\.compression: expected false/],
    [{ minimumSize: -1 }, /^compression options of route GET \/bad: config\.compression\.minimumSize: /],
    [{ compressionLevel: 12 }, /route GET \/bad: config\.compression\.compressionLevel: /],
    [{ encodings: ['zstd'] }, /route GET \/bad: config\.compression\.encodings/],
    [{ encodings: ['gzip', 'gzip'] }, /^compression options of route GET \/bad: config\.compression\.encodings: lists "gzip" twice$/],
    [{ level: 3 }, /route GET \/bad: config\.compression\.level: unknown option$/],
    [{ requestDecompression: { maxSize: 0 } }, /route GET \/bad: config\.compression\.requestDecompression/],
    [{ threshold: 1024 }, /route GET \/bad: config\.compression\.threshold: unknown option$/]
  ] as const) {
    const app = await chainApp({})
    t.throws(() => app.get('/bad', { config: { compression: value as never } }, async () => 'x'),
      { code: 'GATEHOUSE_COMPRESSION_INVALID_ROUTE_OPTIONS', message }, JSON.stringify(value))
    await app.close()
  }
})

test('a route declared before the plugin: its config.compression is honoured from its first request', async (t) => {
  const app = Fastify()
  // Without it, any route before a Gatehouse component fails the boot (GATEHOUSE_CORE_ROUTES_BEFORE_CHAIN).
  trackRouteRules(app)
  app.get('/early-off', { config: { compression: false } }, async (_req, reply) => reply.type('text/plain').send(text(5000)))
  app.get('/early-small', { config: { compression: { minimumSize: 10 } } }, async (_req, reply) => reply.type('text/plain').send(text(100)))
  app.get('/early-bad', { config: { compression: { minimumSize: 'x' as never } } }, async (_req, reply) => reply.type('text/plain').send(text(5000)))
  app.get('/early', async (_req, reply) => reply.type('text/plain').send(text(5000)))
  const logged: string[] = []
  app.log.error = ((obj: unknown, msg?: string) => { logged.push(typeof obj === 'string' ? obj : msg ?? '') }) as never
  await app.register(compressionPlugin, {})
  await app.ready()
  t.teardown(() => app.close())
  t.equal((await app.inject({ url: '/early-off', headers: GZIP })).headers['content-encoding'], undefined)
  t.equal((await app.inject({ url: '/early-off', headers: GZIP })).headers.vary, undefined)
  t.equal((await app.inject({ url: '/early-small', headers: GZIP })).headers['content-encoding'], 'gzip')
  t.equal((await app.inject({ url: '/early', headers: GZIP })).headers['content-encoding'], 'gzip')
  const bad = await app.inject({ url: '/early-bad', headers: GZIP })
  t.equal(bad.statusCode, 200)
  t.equal(bad.headers['content-encoding'], undefined, 'an invalid late value: the route is left alone')
  await app.inject({ url: '/early-bad', headers: GZIP })
  t.equal(logged.filter((m) => m.includes('GET /early-bad')).length, 1, 'and it is logged once, naming the route')
})

test('X-No-Compression, when honoured, opts a request out whatever its value; Vary stays', async (t) => {
  const app = await build({ noCompressionHeader: true })
  t.teardown(() => app.close())
  for (const value of ['1', 'true', '', 'false']) {
    const res = await app.inject({ url: '/text?n=5000', headers: { ...GZIP, 'x-no-compression': value } })
    t.equal(res.headers['content-encoding'], undefined, JSON.stringify(value))
    t.equal(res.headers.vary, 'Accept-Encoding', 'another client gets another answer')
    t.equal(res.headers['content-length'], '5000')
    t.equal(res.body, text(5000))
  }
  const res = await app.inject({ url: '/text?n=5000', headers: GZIP })
  t.equal(res.headers['content-encoding'], 'gzip', 'without the header: compressed')
})

const dir = mkdtempSync(join(tmpdir(), 'gatehouse-precompressed-'))
t0.teardown(() => rmSync(dir, { recursive: true, force: true }))
const GZ_FILE = join(dir, 'page.html.gz')
const PAGE = `<html>${text(20_000)}</html>`
writeFileSync(GZ_FILE, gzipSync(PAGE))

test('a body that is already gzip is never compressed twice', async (t) => {
  // Stored (level 0): compressing it again would shrink it, so only the gzip check keeps it as it is.
  const gz = gzipSync(text(5000), { level: 0 })
  const app = await build({ encodings: ['br', 'gzip', 'deflate'] }, (app) => {
    // The route forgot Content-Encoding: the bytes go as they are, untouched.
    app.get('/buffer', async (_req, reply) => reply.type('text/plain').send(gz))
    app.get('/file', async (_req, reply) => reply.type('text/html').send(createReadStream(GZ_FILE)))
    // The route said so: it is left alone.
    app.get('/labelled', async (_req, reply) => reply.type('text/html').header('content-encoding', 'gzip').send(createReadStream(GZ_FILE)))
    app.get('/plain-stream', async (_req, reply) => reply.type('text/html').send(Readable.from([Buffer.from(PAGE)])))
    app.get('/empty-stream', async (_req, reply) => reply.type('text/html').send(Readable.from([])))
    app.get('/failing-stream', async (_req, reply) => reply.type('text/html').send(new Readable({ read () { this.destroy(new Error('disk gone')) } })))
  })
  t.teardown(() => app.close())
  for (const accept of ['gzip', 'br', 'deflate']) {
    const buffer = await app.inject({ url: '/buffer', headers: { 'accept-encoding': accept } })
    t.same(buffer.rawPayload, gz, `${accept}: the route's gzip bytes, once`)
    t.equal(buffer.headers['content-encoding'], undefined)
    t.equal(buffer.headers['content-length'], String(gz.length))
    const file = await app.inject({ url: '/file', headers: { 'accept-encoding': accept } })
    t.equal(file.headers['content-encoding'], undefined, `${accept}: a gzip stream is not encoded again`)
    t.equal(gunzipSync(file.rawPayload).toString(), PAGE, 'one gunzip gives the page')
  }
  const labelled = await app.inject({ url: '/labelled', headers: GZIP })
  t.equal(labelled.headers['content-encoding'], 'gzip')
  t.equal(gunzipSync(labelled.rawPayload).toString(), PAGE)
  const plain = await app.inject({ url: '/plain-stream', headers: GZIP })
  t.equal(plain.headers['content-encoding'], 'gzip', 'a stream of text is still compressed after the peek')
  t.equal(gunzipSync(plain.rawPayload).toString(), PAGE)
  const empty = await app.inject({ url: '/empty-stream', headers: GZIP })
  t.equal(empty.statusCode, 200)
  t.equal(empty.rawPayload.length, 0)
  t.equal(empty.headers['content-encoding'], undefined, 'an empty stream: nothing to encode')
  const failing = await app.inject({ url: '/failing-stream', headers: GZIP })
  t.equal(failing.statusCode, 500, 'a stream failing before its first chunk is the route\'s error, as without compression')
})
