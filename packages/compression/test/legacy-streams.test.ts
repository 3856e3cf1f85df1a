// Old-style (streams1) payloads, as @fastify/compress's suite sends them: a
// bare `Stream` handed to `reply.send` and written right after (issue 25,
// item 17; D-COMPRESSION-15). D-COMPRESSION-06 promises Vary: Accept-Encoding
// on any body worth encoding, whichever coding is chosen.
import { once } from 'node:events'
import { request as httpRequest, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Readable, Stream } from 'node:stream'
import { gunzipSync } from 'node:zlib'
import { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { build, text } from './helpers/build.js'
import { peekFirstChunk } from '../src/precompressed.js'

const LINES = [text(400), text(700), text(300)]
const BODY = LINES.join('')

/** `GET /legacy`: a streams1 stream (only `pipe`, `data` and `end`), written after `reply.send` returns. */
async function legacyApp (): Promise<FastifyInstance> {
  return build({}, (app) => {
    app.get('/legacy', (_request, reply) => {
      const stream = new Stream() as Stream & { readable: boolean }
      stream.readable = true
      reply.type('text/plain').send(stream)
      for (const line of LINES) stream.emit('data', line)
      stream.emit('end')
    })
  })
}

test('inject: a streams1 stream is gzipped, with Vary: Accept-Encoding and no Content-Length', async (t) => {
  const app = await legacyApp()
  t.teardown(() => app.close())
  const res = await app.inject({ url: '/legacy', headers: { 'accept-encoding': 'gzip' } })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['content-encoding'], 'gzip')
  t.equal(res.headers.vary, 'Accept-Encoding')
  t.equal(res.headers['content-length'], undefined)
  t.equal(gunzipSync(res.rawPayload).toString(), BODY, 'every byte written after send, in order')

  const identity = await app.inject({ url: '/legacy', headers: { 'accept-encoding': 'identity' } })
  t.equal(identity.headers['content-encoding'], undefined)
  t.equal(identity.headers.vary, 'Accept-Encoding', 'the answer depends on Accept-Encoding either way')
  t.equal(identity.body, BODY)

  const head = await app.inject({ method: 'HEAD', url: '/legacy', headers: { 'accept-encoding': 'gzip' } })
  t.equal(head.headers['content-encoding'], 'gzip', 'HEAD says what GET sends')
  t.equal(head.headers.vary, 'Accept-Encoding')
  t.equal(head.body, '')
})

test('over a real socket: two streams1 responses on one keep-alive connection, both gzipped and complete', async (t) => {
  const app = await legacyApp()
  t.teardown(() => app.close())
  await app.listen({ host: '127.0.0.1', port: 0 })
  const { port } = app.server.address() as AddressInfo
  const { Agent } = await import('node:http')
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  t.teardown(() => agent.destroy())
  const sockets = new Set<unknown>()
  for (let i = 0; i < 2; i++) {
    const req = httpRequest({ host: '127.0.0.1', port, path: '/legacy', headers: { 'accept-encoding': 'gzip, deflate' }, agent })
    req.end()
    const [res] = await once(req, 'response') as [IncomingMessage]
    sockets.add(res.socket)
    const chunks: Buffer[] = []
    for await (const chunk of res) chunks.push(chunk as Buffer)
    t.equal(res.statusCode, 200)
    t.equal(res.headers['content-encoding'], 'gzip')
    t.equal(res.headers.vary, 'Accept-Encoding')
    t.equal(res.headers['transfer-encoding'], 'chunked')
    t.equal(gunzipSync(Buffer.concat(chunks)).toString(), BODY)
  }
  t.equal(sockets.size, 1, 'one connection carried both')
})

test('peekFirstChunk: a readable without `errored` (readable-stream 2) is peeked, not taken as over', async (t) => {
  const stream = Readable.from([Buffer.from('first'), Buffer.from('second')])
  Object.defineProperty(stream, 'errored', { value: undefined })
  const first = await new Promise<unknown>((resolve) => { peekFirstChunk(stream, resolve) })
  t.same(first, Buffer.from('first'))
  const all: Buffer[] = []
  for await (const chunk of stream) all.push(chunk as Buffer)
  t.equal(Buffer.concat(all).toString(), 'firstsecond', 'the peeked chunk was put back')
})
