// Encoded request bodies over a real socket: a chunked upload of a gzip
// bomb is refused while it is still being sent, without inflating it.
import { request as httpRequest } from 'node:http'
import { pipeline, Transform, type Readable } from 'node:stream'
import { randomBytes } from 'node:crypto'
import { gunzipSync, gzipSync } from 'node:zlib'
import { test } from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import { middlewareChain } from '@fastify-gatehouse/core'
import { errorsPlugin } from '@fastify-gatehouse/errors'
import { compressionPlugin } from '@fastify-gatehouse/compression'
import { text } from './helpers/build.js'

interface Upload { status: number, headers: Record<string, unknown>, body: Buffer, sent: number }

/**
 * POSTs `body` in 16 KiB chunks (chunked unless `length` is given), each
 * write waiting for the socket to drain, and stops sending once the answer
 * arrives: what a client streaming a large upload does.
 */
function upload (port: number, body: Buffer, headers: Record<string, string>, path = '/count'): Promise<Upload> {
  return new Promise((resolve, reject) => {
    let sent = 0
    let answered = false
    const req = httpRequest({ host: '127.0.0.1', port, path, method: 'POST', headers, agent: false }, (res) => {
      answered = true
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), sent }))
      res.on('error', reject)
    })
    // The server closes the connection on a refusal: writing then fails, which is expected.
    req.on('error', (err) => { if (!answered) reject(err) })
    const CHUNK = 16 * 1024
    const writeMore = (): void => {
      while (sent < body.length) {
        // Set by the response callback, between two writes.
        if (answered) return
        const piece = body.subarray(sent, sent + CHUNK)
        sent += piece.length
        if (!req.write(piece)) {
          req.once('drain', writeMore)
          return
        }
      }
      if (!answered) req.end()
    }
    writeMore()
  })
}

interface Seen { decoded: number, decoder: Readable | undefined, socketRead: number }

/**
 * An app decoding request bodies, whose `POST /count` route counts the
 * decoded bytes as they leave the decoder (a hook after the component's),
 * and records how many bytes the server had read from the socket when it
 * answered.
 */
async function listen (seen: Seen): Promise<{ app: FastifyInstance, port: number }> {
  const app = Fastify()
  await middlewareChain(app, { middleware: { compression: { requestDecompression: true } } }, { components: [errorsPlugin, compressionPlugin] })
  app.addContentTypeParser('application/octet-stream', { parseAs: 'buffer' }, (_req, body, done) => done(null, body))
  app.addHook('onResponse', async (request) => { seen.socketRead = request.raw.socket.bytesRead })
  app.post('/count', {
    preParsing: (_request, _reply, payload, done) => {
      seen.decoder = payload
      const counter = new Transform({
        transform (chunk: Buffer, _encoding, callback) {
          seen.decoded += chunk.length
          callback(null, chunk)
        }
      })
      pipeline(payload, counter, () => {})
      done(null, counter)
    }
  }, async (request) => ({ length: (request.body as Buffer).length }))
  app.post('/echo', async (request) => request.body)
  await app.listen({ host: '127.0.0.1', port: 0 })
  const address = app.server.address()
  return { app, port: typeof address === 'object' && address !== null ? address.port : 0 }
}

test('a chunked gzip bomb (1 GiB in about 1 MiB) is refused with 413 once 1 MiB is decoded; the rest is neither read nor inflated', async (t) => {
  // 64 members of 16 MiB of zeros each: concatenated gzip members are one gzip body.
  const member = gzipSync(Buffer.alloc(16 * 1024 * 1024), { level: 9 })
  const bomb = Buffer.concat(Array.from({ length: 64 }, () => member))
  t.ok(bomb.length < 1.5 * 1024 * 1024, `the bomb is ${bomb.length} bytes for 1 GiB decoded`)
  const seen: Seen = { decoded: 0, decoder: undefined, socketRead: 0 }
  const { app, port } = await listen(seen)
  t.teardown(() => app.close())
  const res = await upload(port, bomb, { 'content-type': 'application/octet-stream', 'content-encoding': 'gzip', 'transfer-encoding': 'chunked' })
  t.equal(res.status, 413)
  const body = JSON.parse(res.body.toString())
  t.equal(body.code, 'GATEHOUSE_COMPRESSION_BODY_TOO_LARGE')
  t.equal(body.message, 'request body decodes to more than 1048576 bytes')
  t.equal(res.headers.connection, 'close')
  t.ok(seen.decoded <= 1024 * 1024, `decoding stopped at the limit: ${seen.decoded} bytes decoded`)
  t.ok(seen.decoder?.destroyed, 'the decoder is destroyed: zlib inflates nothing more')
  t.ok(seen.socketRead < bomb.length / 4, `the server read ${seen.socketRead} of ${bomb.length} bytes of the upload`)
})

test('a chunked upload within the limit is decoded whole; one with Content-Length too', async (t) => {
  const seen: Seen = { decoded: 0, decoder: undefined, socketRead: 0 }
  const { app, port } = await listen(seen)
  t.teardown(() => app.close())
  const data = Buffer.from(text(900_000))
  const gz = gzipSync(data)
  const chunked = await upload(port, gz, { 'content-type': 'application/octet-stream', 'content-encoding': 'gzip', 'transfer-encoding': 'chunked' })
  t.equal(chunked.status, 200)
  t.equal(JSON.parse(chunked.body.toString()).length, data.length)
  t.equal(seen.decoded, data.length)
  const doc = { note: text(50_000) }
  const json = gzipSync(JSON.stringify(doc))
  const sized = await upload(port, json, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': String(json.length), 'accept-encoding': 'gzip' }, '/echo')
  t.equal(sized.status, 200)
  t.equal(sized.headers['content-encoding'], 'gzip', 'the answer is compressed as usual')
  t.same(JSON.parse(gunzipSync(sized.body).toString()), doc, 'gzip both ways round-trips')
})

/** A zlib-format deflate stream of `blocks` empty stored blocks, then one final stored block holding `data`. */
function emptyDeflateBlocks (blocks: number, data: Buffer): Buffer {
  const empty = Buffer.from([0x00, 0x00, 0x00, 0xff, 0xff])
  let a = 1
  let b = 0
  for (const byte of data) {
    a = (a + byte) % 65521
    b = (b + a) % 65521
  }
  const adler = Buffer.alloc(4)
  adler.writeUInt32BE(((b << 16) | a) >>> 0)
  const final = Buffer.concat([Buffer.from([0x01, data.length & 0xff, data.length >> 8, ~data.length & 0xff, (~data.length >> 8) & 0xff]), data, adler])
  return Buffer.concat([Buffer.from([0x78, 0x01]), Buffer.alloc(blocks * empty.length).fill(empty), final])
}

test('an encoded body that decodes to (almost) nothing is refused with 413 once its encoded bytes pass the limit; the rest is not read', async (t) => {
  const cases: Array<[string, string, Buffer]> = [
    // 16 MiB of empty stored blocks, then `{"a":1}`: nothing decoded until the very end.
    ['deflate: empty stored blocks', 'deflate', emptyDeflateBlocks(Math.ceil(16 * 1024 * 1024 / 5), Buffer.from('{"a":1}'))],
    // 16 MiB of empty gzip members (20 bytes each): nothing decoded at all.
    ['gzip: empty members', 'gzip', Buffer.alloc(16 * 1024 * 1024 - (16 * 1024 * 1024) % 20).fill(gzipSync(Buffer.alloc(0)))]
  ]
  for (const [name, coding, body] of cases) {
    await t.test(name, async (t) => {
      const seen: Seen = { decoded: 0, decoder: undefined, socketRead: 0 }
      const { app, port } = await listen(seen)
      t.teardown(() => app.close())
      const res = await upload(port, body, { 'content-type': 'application/json', 'content-encoding': coding, 'transfer-encoding': 'chunked' }, '/echo')
      t.equal(res.status, 413)
      const answer = JSON.parse(res.body.toString())
      t.equal(answer.code, 'GATEHOUSE_COMPRESSION_BODY_TOO_LARGE')
      t.equal(answer.message, 'request body is larger than 1048576 bytes encoded')
      t.equal(res.headers.connection, 'close')
      t.ok(seen.socketRead < body.length / 4, `the server read ${seen.socketRead} of ${body.length} bytes of the upload`)
    })
  }
})

test('the encoded bytes are bounded by maxSize when it is larger than bodyLimit (a stream parser), else by bodyLimit', async (t) => {
  const app = Fastify({ bodyLimit: 1024 * 1024 })
  t.teardown(() => app.close())
  await middlewareChain(app, { middleware: { compression: { requestDecompression: true } } }, { components: [errorsPlugin, compressionPlugin] })
  // A stream parser: Fastify counts nothing, the decoder's limits are the only ones.
  app.addContentTypeParser('application/octet-stream', (_req, payload, done) => {
    let length = 0
    payload.on('data', (chunk: Buffer) => { length += chunk.length })
    payload.on('end', () => done(null, length))
    payload.on('error', (err) => done(err))
  })
  let socketRead = 0
  app.addHook('onResponse', async (request) => { socketRead = request.raw.socket.bytesRead })
  app.post('/large', { config: { compression: { requestDecompression: { maxSize: 4 * 1024 * 1024 } } } }, async (request) => ({ length: request.body }))
  await app.listen({ host: '127.0.0.1', port: 0 })
  const address = app.server.address()
  const port = typeof address === 'object' && address !== null ? address.port : 0
  const headers = { 'content-type': 'application/octet-stream', 'content-encoding': 'gzip', 'transfer-encoding': 'chunked' }
  // 2 MiB that do not compress: more than bodyLimit encoded, less than maxSize.
  const random = randomBytes(2 * 1024 * 1024)
  const ok = await upload(port, gzipSync(random), headers, '/large')
  t.equal(ok.status, 200)
  t.same(JSON.parse(ok.body.toString()), { length: random.length })
  const empties = Buffer.alloc(16 * 1024 * 1024).fill(gzipSync(Buffer.alloc(0)))
  const refused = await upload(port, empties.subarray(0, empties.length - empties.length % 20), headers, '/large')
  t.equal(refused.status, 413)
  t.equal(JSON.parse(refused.body.toString()).code, 'GATEHOUSE_COMPRESSION_BODY_TOO_LARGE')
  t.equal(JSON.parse(refused.body.toString()).message, 'request body is larger than 4194304 bytes encoded')
  t.ok(socketRead < 8 * 1024 * 1024, `the server read ${socketRead} of ${empties.length} bytes of the upload`)
})
