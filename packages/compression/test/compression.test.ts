import { brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib'
import { Readable } from 'node:stream'
import { test } from 'tap'
import Fastify from 'fastify'
import { recipeFromConfig } from '@fastify-gatehouse/core'
import { compressionDefaults, compressionPlugin } from '@fastify-gatehouse/compression'
import { build, noise, text } from './helpers/build.js'

const GZIP = { 'accept-encoding': 'gzip' }

test('defaults: minimum_size 500, level 6, gzip only, X-No-Compression ignored, no request decoding; off unless asked for', async (t) => {
  t.same(compressionDefaults, { minimumSize: 500, compressionLevel: 6, encodings: ['gzip'], noCompressionHeader: false, requestDecompression: false })
  t.ok(Object.isFrozen(compressionDefaults) && Object.isFrozen(compressionDefaults.encodings))
  t.same(compressionPlugin.component, { name: 'compression', order: 900, default: false, schema: compressionPlugin.component.schema })
})

test('a compressible body of at least minimumSize is gzipped, with the headers that go with it', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  const res = await app.inject({ url: '/json', headers: GZIP })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['content-encoding'], 'gzip')
  t.equal(res.headers.vary, 'Accept-Encoding')
  t.equal(res.headers['content-length'], String(res.rawPayload.length))
  t.same(JSON.parse(gunzipSync(res.rawPayload).toString()), { data: text(2000) })
  t.ok(res.rawPayload.length < 2000)
})

test('minimumSize counts bytes, and can be changed', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  t.equal((await app.inject({ url: '/text?n=499', headers: GZIP })).headers['content-encoding'], undefined)
  t.equal((await app.inject({ url: '/text?n=500', headers: GZIP })).headers['content-encoding'], 'gzip')
  const small = await build({ minimumSize: 100 })
  t.teardown(() => small.close())
  t.equal((await small.inject({ url: '/text?n=150', headers: GZIP })).headers['content-encoding'], 'gzip')
  const utf8 = await build({ minimumSize: 10 }, (app) => {
    app.get('/utf8', async (_req, reply) => reply.type('text/plain; charset=utf-8').send('ééééé'.repeat(1)))
  })
  t.teardown(() => utf8.close())
  // 5 characters, 10 bytes: at the minimum, so it is tried (and grows, so it is sent as is).
  const res = await utf8.inject({ url: '/utf8', headers: GZIP })
  t.equal(res.body, 'ééééé')
  t.equal(res.headers.vary, 'Accept-Encoding', 'eligible by bytes, not characters')
})

test('compressionLevel is passed to zlib: 1 and 9 both decode, 9 is smaller', async (t) => {
  const sizes: number[] = []
  for (const level of [1, 9]) {
    const app = await build({ compressionLevel: level })
    const res = await app.inject({ url: '/text?n=20000', headers: GZIP })
    t.equal(gunzipSync(res.rawPayload).toString(), text(20000))
    sizes.push(res.rawPayload.length)
    await app.close()
  }
  t.ok(sizes[1]! < sizes[0]!, `level 9 (${sizes[1]}) < level 1 (${sizes[0]})`)
})

test('by default the body is exactly what zlib.gzipSync gives at level 6', async (t) => {
  // Varied JSON, like API output: on such a body the levels give different
  // bytes (on plain repeated text, levels 4 to 8 agree and could not be told apart).
  const body = JSON.stringify(Array.from({ length: 400 }, (_, i) => ({ id: i, name: `item-${(i * 7919) % 1009}`, price: (i * 37) % 1000 })))
  const app = await build({}, (app) => { app.get('/varied', async (_req, reply) => reply.type('application/json').send(body)) })
  t.teardown(() => app.close())
  const res = await app.inject({ url: '/varied', headers: GZIP })
  t.same(res.rawPayload, gzipSync(body, { level: 6 }), 'level 6')
  for (const level of [5, 7]) {
    t.notSame(gzipSync(body, { level }), gzipSync(body, { level: 6 }), `level ${level} gives other bytes, so the check can tell`)
  }
})

test('only when Accept-Encoding allows gzip', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  for (const [header, expected] of [
    [undefined, undefined], ['identity', undefined], ['gzip;q=0', undefined], ['br', undefined], ['*;q=0', undefined],
    ['gzip;q=0.5', 'gzip'], ['*', 'gzip'], ['deflate, gzip', 'gzip'], ['gzip;q=nonsense', undefined]
  ] as const) {
    const res = await app.inject({ url: '/text', headers: header === undefined ? {} : { 'accept-encoding': header } })
    t.equal(res.statusCode, 200)
    t.equal(res.headers['content-encoding'], expected, String(header))
    t.equal(res.headers.vary, 'Accept-Encoding', 'the response varies either way')
    const body = expected === undefined ? res.body : gunzipSync(res.rawPayload).toString()
    t.equal(body, text(2000))
  }
})

test('only compressible types', async (t) => {
  const app = await build({}, (app) => {
    app.get('/png', async (_req, reply) => reply.type('image/png').send(Buffer.from(text(2000))))
    app.get('/bytes', async () => Buffer.from(text(2000)))
    app.get('/problem', async (_req, reply) => reply.type('application/problem+json').send(JSON.stringify({ detail: text(2000) })))
    app.get('/svg', async (_req, reply) => reply.type('image/svg+xml').send(`<svg>${text(2000)}</svg>`))
    app.get('/atom', async (_req, reply) => reply.type('application/atom+xml; charset=utf-8').send(`<feed>${text(2000)}</feed>`))
  })
  t.teardown(() => app.close())
  t.equal((await app.inject({ url: '/png', headers: GZIP })).headers['content-encoding'], undefined)
  t.equal((await app.inject({ url: '/bytes', headers: GZIP })).headers['content-encoding'], undefined, 'application/octet-stream')
  t.equal((await app.inject({ url: '/png', headers: GZIP })).headers.vary, undefined)
  t.equal((await app.inject({ url: '/problem', headers: GZIP })).headers['content-encoding'], 'gzip')
  const svg = await app.inject({ url: '/svg', headers: GZIP })
  t.equal(svg.headers['content-encoding'], 'gzip')
  t.equal(gunzipSync(svg.rawPayload).toString(), `<svg>${text(2000)}</svg>`)
  const atom = await app.inject({ url: '/atom', headers: GZIP })
  t.equal(atom.headers['content-encoding'], 'gzip', 'a +xml type')
  t.equal(gunzipSync(atom.rawPayload).toString(), `<feed>${text(2000)}</feed>`)
})

test('a body that would not shrink is sent as it is', async (t) => {
  const app = await build({}, (app) => {
    app.get('/noise', async (_req, reply) => reply.type('text/plain').send(noise(600)))
  })
  t.teardown(() => app.close())
  const res = await app.inject({ url: '/noise', headers: GZIP })
  t.equal(res.headers['content-encoding'], undefined)
  t.same(res.rawPayload, noise(600))
  t.equal(res.headers['content-length'], '600')
})

test('Vary is merged with the route\'s, without duplicates', async (t) => {
  const app = await build({}, (app) => {
    app.get('/origin', async (_req, reply) => reply.type('text/plain').header('vary', 'Origin').send(text(2000)))
    app.get('/already', async (_req, reply) => reply.type('text/plain').header('vary', 'origin, accept-encoding').send(text(2000)))
  })
  t.teardown(() => app.close())
  t.equal((await app.inject({ url: '/origin', headers: GZIP })).headers.vary, 'Origin, Accept-Encoding')
  t.equal((await app.inject({ url: '/already', headers: GZIP })).headers.vary, 'origin, accept-encoding')
})

test('a strong ETag turns weak; a weak one stays as it is', async (t) => {
  const app = await build({}, (app) => {
    app.get('/strong', async (_req, reply) => reply.type('text/plain').header('etag', '"abc"').send(text(2000)))
    app.get('/weak', async (_req, reply) => reply.type('text/plain').header('etag', 'W/"abc"').send(text(2000)))
  })
  t.teardown(() => app.close())
  t.equal((await app.inject({ url: '/strong', headers: GZIP })).headers.etag, 'W/"abc"')
  t.equal((await app.inject({ url: '/strong' })).headers.etag, '"abc"', 'uncompressed: still strong')
  t.equal((await app.inject({ url: '/weak', headers: GZIP })).headers.etag, 'W/"abc"')
})

test('rfc9110 §9.3.2: HEAD answers with the header fields GET sends, and no body', async (t) => {
  const app = await build({}, (app) => {
    app.get('/tagged', async (_req, reply) => reply.type('text/plain').header('etag', '"t"').send(text(2000)))
    app.get('/stream', async (_req, reply) => reply.type('text/plain').header('etag', '"s"').send(Readable.from([text(1000), text(1000)])))
  })
  t.teardown(() => app.close())
  const fields = ['content-encoding', 'content-length', 'content-type', 'etag', 'vary']
  const pick = (headers: Record<string, unknown>) => Object.fromEntries(fields.map((f) => [f, headers[f]]))
  const cases: Array<[string, Record<string, string>, Record<string, unknown>]> = [
    ['/tagged', GZIP, { 'content-encoding': 'gzip', etag: 'W/"t"', vary: 'Accept-Encoding' }],
    ['/tagged', {}, { 'content-encoding': undefined, 'content-length': '2000', etag: '"t"', vary: 'Accept-Encoding' }],
    ['/text?n=100', GZIP, { 'content-encoding': undefined, 'content-length': '100', vary: undefined }],
    ['/stream', GZIP, { 'content-encoding': 'gzip', 'content-length': undefined, etag: 'W/"s"', vary: 'Accept-Encoding' }]
  ]
  for (const [url, headers, expected] of cases) {
    const get = await app.inject({ url, headers })
    const head = await app.inject({ method: 'HEAD', url, headers })
    t.equal(head.statusCode, 200, `HEAD ${url}`)
    t.equal(head.rawPayload.length, 0, `HEAD ${url}: no body`)
    t.same(pick(head.headers), pick(get.headers), `HEAD ${url} ${JSON.stringify(headers)}: GET's header fields`)
    t.match(pick(head.headers), expected, `HEAD ${url} ${JSON.stringify(headers)}`)
  }
  const gzipped = await app.inject({ url: '/tagged', headers: GZIP })
  t.equal((await app.inject({ method: 'HEAD', url: '/tagged', headers: GZIP })).headers['content-length'], String(gzipped.rawPayload.length), 'the compressed length')
})

test('a HEAD route of the application\'s own, with the identity length set: the length is the encoded one', async (t) => {
  const app = await build({}, (app) => {
    app.route({
      method: ['GET', 'HEAD'],
      url: '/sized',
      exposeHeadRoute: false,
      handler: async (_req, reply) => reply.type('text/plain').header('content-length', '2000').send(text(2000))
    })
  })
  t.teardown(() => app.close())
  const get = await app.inject({ url: '/sized', headers: GZIP })
  const head = await app.inject({ method: 'HEAD', url: '/sized', headers: GZIP })
  t.equal(get.headers['content-encoding'], 'gzip')
  t.equal(get.headers['content-length'], String(get.rawPayload.length))
  t.equal(head.headers['content-encoding'], 'gzip')
  t.equal(head.headers['content-length'], get.headers['content-length'], 'not the 2000 the route set')
  t.equal(head.rawPayload.length, 0)
})

test('already-encoded responses, 204, 206 and 304 are left alone', async (t) => {
  const gz = gunzipSync.length > 0 ? (await import('node:zlib')).gzipSync(text(2000)) : Buffer.alloc(0)
  const app = await build({}, (app) => {
    app.get('/encoded', async (_req, reply) => reply.type('text/plain').header('content-encoding', 'gzip').send(gz))
    app.get('/empty', async (_req, reply) => reply.code(204).send())
    app.get('/secret', async (_req, reply) => reply.type('text/html').header('content-encoding', 'identity').send(text(2000)))
    app.get('/partial', async (_req, reply) => reply.code(206).type('text/plain').header('content-range', 'bytes 0-1999/5000').send(text(2000)))
    app.get('/same', async (_req, reply) => reply.code(304).type('text/plain').header('etag', '"x"').send())
  })
  t.teardown(() => app.close())
  const secret = await app.inject({ url: '/secret', headers: GZIP })
  t.equal(secret.body, text(2000), 'Content-Encoding: identity opts a response out')
  const encoded = await app.inject({ url: '/encoded', headers: GZIP })
  t.same(encoded.rawPayload, gz, 'not encoded twice')
  const empty = await app.inject({ url: '/empty', headers: GZIP })
  t.equal(empty.statusCode, 204)
  t.equal(empty.headers['content-encoding'], undefined)
  const partial = await app.inject({ url: '/partial', headers: GZIP })
  t.equal(partial.statusCode, 206)
  t.equal(partial.headers['content-encoding'], undefined)
  t.equal(partial.body, text(2000))
  const same = await app.inject({ url: '/same', headers: GZIP })
  t.equal(same.statusCode, 304)
  t.equal(same.body, '')
  t.equal(same.headers['content-encoding'], undefined)
  t.equal(same.headers.etag, 'W/"x"', 'the 304 carries the validator the compressed 200 would')
  t.equal(same.headers.vary, 'Accept-Encoding')
  t.equal((await app.inject({ url: '/same' })).headers.etag, '"x"', 'no coding accepted: as the identity 200 would')
})

test('br when offered: chosen by weight and server order, and it decodes', async (t) => {
  const app = await build({ encodings: ['br', 'gzip'] })
  t.teardown(() => app.close())
  const br = await app.inject({ url: '/text?n=5000', headers: { 'accept-encoding': 'gzip, br' } })
  t.equal(br.headers['content-encoding'], 'br')
  t.equal(brotliDecompressSync(br.rawPayload).toString(), text(5000))
  const gz = await app.inject({ url: '/text?n=5000', headers: { 'accept-encoding': 'gzip, br;q=0.5' } })
  t.equal(gz.headers['content-encoding'], 'gzip')
  const gzipOnly = await build()
  t.teardown(() => gzipOnly.close())
  t.equal((await gzipOnly.inject({ url: '/text', headers: { 'accept-encoding': 'br' } })).headers['content-encoding'], undefined, 'br is not offered by default')
})

test('large bodies are compressed off the event loop and still decode', async (t) => {
  const app = await build({ encodings: ['gzip', 'br'] })
  t.teardown(() => app.close())
  const gz = await app.inject({ url: '/text?n=300000', headers: GZIP })
  t.equal(gz.headers['content-encoding'], 'gzip')
  t.equal(gz.headers['content-length'], String(gz.rawPayload.length))
  t.equal(gunzipSync(gz.rawPayload).toString(), text(300000))
  const br = await app.inject({ url: '/text?n=300000', headers: { 'accept-encoding': 'br' } })
  t.equal(brotliDecompressSync(br.rawPayload).toString(), text(300000))
})

test('streams of a compressible type are compressed as they flow; a declared small length is not', async (t) => {
  const app = await build({}, (app) => {
    app.get('/stream', async (_req, reply) => reply.type('text/plain').header('etag', '"s"').send(Readable.from([text(1000), text(1000)])))
    app.get('/short', async (_req, reply) => reply.type('text/plain').header('content-length', '20').send(Readable.from([text(20)])))
    app.get('/binary', async (_req, reply) => reply.send(Readable.from([Buffer.from(text(2000))])))
  })
  t.teardown(() => app.close())
  const res = await app.inject({ url: '/stream', headers: GZIP })
  t.equal(res.headers['content-encoding'], 'gzip')
  t.equal(res.headers['content-length'], undefined)
  t.equal(res.headers.etag, 'W/"s"')
  t.equal(gunzipSync(res.rawPayload).toString(), text(1000) + text(1000))
  const short = await app.inject({ url: '/short', headers: GZIP })
  t.equal(short.headers['content-encoding'], undefined)
  t.equal(short.body, text(20))
  const binary = await app.inject({ url: '/binary', headers: GZIP })
  t.equal(binary.headers['content-encoding'], undefined, 'a stream without a type passes through')
})

test('boot errors: level out of 1–9, bad sizes and encodings, with codes and paths', async (t) => {
  for (const [options, code, message] of [
    [{ compressionLevel: 0 }, 'GATEHOUSE_CORE_INVALID_OPTIONS', /^compression options\.compressionLevel: /],
    [{ compressionLevel: 10 }, 'GATEHOUSE_CORE_INVALID_OPTIONS', /^compression options\.compressionLevel: /],
    [{ compressionLevel: 6.5 }, 'GATEHOUSE_CORE_INVALID_OPTIONS', /compressionLevel: expected integer/],
    [{ minimumSize: -1 }, 'GATEHOUSE_CORE_INVALID_OPTIONS', /minimumSize/],
    [{ encodings: [] }, 'GATEHOUSE_CORE_INVALID_OPTIONS', /encodings/],
    [{ encodings: ['zstd'] }, 'GATEHOUSE_CORE_INVALID_OPTIONS', /encodings\["0"\]: expected union value/],
    [{ encodings: ['gzip', 'deflate', 'gzip'] }, 'GATEHOUSE_COMPRESSION_INVALID_OPTIONS', /^compression options: encodings: lists "gzip" twice/],
    [{ noCompressionHeader: 'yes' }, 'GATEHOUSE_CORE_INVALID_OPTIONS', /^compression options\.noCompressionHeader: expected boolean/],
    [{ requestDecompression: 'gzip' }, 'GATEHOUSE_CORE_INVALID_OPTIONS', /^compression options\.requestDecompression: /],
    [{ requestDecompression: { maxSize: 0 } }, 'GATEHOUSE_CORE_INVALID_OPTIONS', /requestDecompression/],
    [{ requestDecompression: { encodings: ['zstd'] } }, 'GATEHOUSE_CORE_INVALID_OPTIONS', /requestDecompression/],
    [{ requestDecompression: { encodings: [] } }, 'GATEHOUSE_CORE_INVALID_OPTIONS', /requestDecompression/],
    [{ requestDecompression: { limit: 5 } }, 'GATEHOUSE_CORE_INVALID_OPTIONS', /requestDecompression/],
    [{ requestDecompression: { encodings: ['br', 'br'] } }, 'GATEHOUSE_COMPRESSION_INVALID_OPTIONS', /^compression options: requestDecompression\.encodings: lists "br" twice/],
    [{ encodings: ['gzip', 'gzip'] }, 'GATEHOUSE_COMPRESSION_INVALID_OPTIONS', /^compression options: encodings: lists "gzip" twice/],
    [{ minimum_size: 1 }, 'GATEHOUSE_CORE_INVALID_OPTIONS', /options are camelCase: minimumSize/]
  ] as const) {
    const app = Fastify()
    await t.rejects(async () => { await app.register(compressionPlugin, options as never).ready() }, { code, message }, JSON.stringify(options))
    await app.close()
  }
})

test('config files use snake_case keys; a bad level names the path as written', async (t) => {
  const config = recipeFromConfig({
    middleware: {
      compression: {
        minimum_size: 1000, compression_level: 9, encodings: ['br', 'gzip', 'deflate'], no_compression_header: true, request_decompression: { encodings: ['gzip'], max_size: 4096 }
      }
    }
  }, { components: [compressionPlugin] })
  t.same(config.middleware?.compression, {
    minimumSize: 1000, compressionLevel: 9, encodings: ['br', 'gzip', 'deflate'], noCompressionHeader: true, requestDecompression: { encodings: ['gzip'], maxSize: 4096 }
  })
  t.throws(() => recipeFromConfig({ middleware: { compression: { request_decompression: { max_size: -1 } } } }, { components: [compressionPlugin] }),
    { code: 'GATEHOUSE_CORE_INVALID_OPTIONS', message: /^middleware\.compression\.request_decompression/ })
  t.throws(() => recipeFromConfig({ middleware: { compression: { compression_level: 12 } } }, { components: [compressionPlugin] }),
    { code: 'GATEHOUSE_CORE_INVALID_OPTIONS', message: /^middleware\.compression\.compression_level: / })
})

test('registered alone with app.register; the caller\'s options are not changed', async (t) => {
  const app = Fastify()
  const options = { encodings: ['gzip' as const], minimumSize: 10 }
  await app.register(compressionPlugin, options)
  app.get('/', async (_req, reply) => reply.type('text/plain').send(text(100)))
  const res = await app.inject({ url: '/', headers: GZIP })
  t.equal(res.headers['content-encoding'], 'gzip')
  t.same(options, { encodings: ['gzip'], minimumSize: 10 })
  await app.close()
})
