// Old-style (streams1) payloads, as @fastify/compress's suite sends them: a
// bare `Stream` handed to `reply.send` and written right after (issue 25,
// item 17; D-COMPRESSION-15). D-COMPRESSION-06 promises Vary: Accept-Encoding
// on any body worth encoding, whichever coding is chosen.
import { once } from 'node:events'
import { Agent, request as httpRequest, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Readable, Stream } from 'node:stream'
import { gunzipSync } from 'node:zlib'
import { test, type Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { build, noise, text } from './helpers/build.js'
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

/** `app` listening on 127.0.0.1, closed at the end of `t`, and a keep-alive agent of one socket at most. */
async function listening (t: Test, app: FastifyInstance): Promise<{ port: number, agent: Agent }> {
  t.teardown(() => app.close())
  await app.listen({ host: '127.0.0.1', port: 0 })
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  t.teardown(() => agent.destroy())
  return { port: (app.server.address() as AddressInfo).port, agent }
}

/** One GET over `agent`: status, headers and the raw body bytes. */
async function fetchRaw (port: number, path: string, agent: Agent, encoding: string): Promise<{ res: IncomingMessage, body: Buffer }> {
  const req = httpRequest({ host: '127.0.0.1', port, path, headers: { 'accept-encoding': encoding }, agent })
  req.end()
  const [res] = await once(req, 'response') as [IncomingMessage]
  const chunks: Buffer[] = []
  for await (const chunk of res) chunks.push(chunk as Buffer)
  return { res, body: Buffer.concat(chunks) }
}

test('over a real socket: two streams1 responses on one keep-alive connection, both gzipped and complete', async (t) => {
  const { port, agent } = await listening(t, await legacyApp())
  const sockets = new Set<unknown>()
  for (let i = 0; i < 2; i++) {
    const { res, body } = await fetchRaw(port, '/legacy', agent, 'gzip, deflate')
    sockets.add(res.socket)
    t.equal(res.statusCode, 200)
    t.equal(res.headers['content-encoding'], 'gzip')
    t.equal(res.headers.vary, 'Accept-Encoding')
    t.equal(res.headers['transfer-encoding'], 'chunked')
    t.equal(gunzipSync(body).toString(), BODY)
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

// Streams1 libraries (through@2.3.8, under JSONStream and event-stream) emit
// `close` right after `end`; Node's `Readable#wrap` destroyed its wrapper on
// that `close`, before the buffered rows were read (issue 25 review, item 1).

type OldStream = Stream & { readable: boolean, pause?: () => void, resume?: () => void }

/** A bare streams1 stream like through's: `data`, then `end` followed by `close`. */
function throughLike (): OldStream {
  const stream = new Stream() as OldStream
  stream.readable = true
  return stream
}

const ROWS = Array.from({ length: 20 }, (_, i) => `row ${i} ${text(60)}\n`)

/**
 * `GET /sync`: rows, end and close in the handler; `/tick`: the same on a
 * later tick; `/later`: close on the tick after end; `/cut`: close without end.
 */
async function closingApp (): Promise<FastifyInstance> {
  const emitAll = (stream: OldStream, rows: readonly string[], finish: (stream: OldStream) => void): void => {
    for (const row of rows) stream.emit('data', row)
    finish(stream)
  }
  const endThenClose = (stream: OldStream): void => { stream.emit('end'); stream.emit('close') }
  // `when` runs the writing: at once, or on a later tick.
  const routes: Array<[string, (write: () => void) => void, readonly string[], (stream: OldStream) => void]> = [
    ['/sync', (write) => write(), ROWS, endThenClose],
    ['/tick', (write) => setImmediate(write), ROWS, endThenClose],
    ['/later', (write) => setImmediate(write), ROWS, (stream) => { stream.emit('end'); process.nextTick(() => stream.emit('close')) }],
    ['/cut', (write) => setImmediate(write), ROWS.slice(0, 5), (stream) => stream.emit('close')]
  ]
  return build({}, (app) => {
    for (const [url, when, rows, finish] of routes) {
      app.get(url, (_request, reply) => {
        const stream = throughLike()
        reply.type('text/plain').send(stream)
        when(() => emitAll(stream, rows, finish))
      })
    }
  })
}

test('a streams1 stream emitting close right after end: 200 with every row, gzip, identity and HEAD', async (t) => {
  const app = await closingApp()
  t.teardown(() => app.close())
  for (const url of ['/sync', '/tick', '/later']) {
    const gzip = await app.inject({ url, headers: { 'accept-encoding': 'gzip' } })
    t.equal(gzip.statusCode, 200, `${url} gzip`)
    t.equal(gzip.headers['content-encoding'], 'gzip')
    t.equal(gunzipSync(gzip.rawPayload).toString(), ROWS.join(''), `${url}: every row, in order`)

    const identity = await app.inject({ url, headers: { 'accept-encoding': 'identity' } })
    t.equal(identity.statusCode, 200, `${url} identity`)
    t.equal(identity.headers['content-encoding'], undefined)
    t.equal(identity.body, ROWS.join(''))

    const head = await app.inject({ method: 'HEAD', url, headers: { 'accept-encoding': 'gzip' } })
    t.equal(head.statusCode, 200, `${url} HEAD`)
    t.equal(head.headers['content-encoding'], 'gzip')
    t.equal(head.body, '')
  }
})

test('over a real keep-alive socket: two streams1 responses that emit close after end, both complete', async (t) => {
  const { port, agent } = await listening(t, await closingApp())
  const sockets = new Set<unknown>()
  for (const [path, encoding] of [['/tick', 'gzip'], ['/sync', 'identity']] as const) {
    const { res, body } = await fetchRaw(port, path, agent, encoding)
    sockets.add(res.socket)
    t.equal(res.statusCode, 200, `${path} ${encoding}`)
    t.equal(res.headers['content-encoding'], encoding === 'gzip' ? 'gzip' : undefined)
    t.equal((encoding === 'gzip' ? gunzipSync(body) : body).toString(), ROWS.join(''))
  }
  t.equal(sockets.size, 1, 'one connection carried both')
})

test('a streams1 stream closing without end before anything was sent: 500 GATEHOUSE_ERRORS_INTERNAL, as any failing stream', async (t) => {
  const app = await closingApp()
  t.teardown(() => app.close())
  for (const encoding of ['gzip', 'identity']) {
    const res = await app.inject({ url: '/cut', headers: { 'accept-encoding': encoding } })
    t.equal(res.statusCode, 500, encoding)
    t.equal(res.json().code, 'GATEHOUSE_ERRORS_INTERNAL')
    t.equal(res.headers['content-encoding'], undefined)
  }
})

test('a streams1 stream closing without end mid-body is an aborted body: the connection is cut, not left open', async (t) => {
  let current: OldStream | undefined
  const app = await build({}, (app) => {
    app.get('/abort', (_request, reply) => {
      current = throughLike()
      reply.type('text/plain').send(current)
      const stream = current
      // Incompressible, so that gzip too has bytes on the wire before the close.
      setImmediate(() => stream.emit('data', noise(256 * 1024)))
    })
  })
  const { port } = await listening(t, app)
  for (const encoding of ['gzip', 'identity']) {
    const req = httpRequest({ host: '127.0.0.1', port, path: '/abort', headers: { 'accept-encoding': encoding } })
    req.end()
    const [res] = await once(req, 'response') as [IncomingMessage]
    t.equal(res.statusCode, 200, `${encoding}: the head went out`)
    t.equal(res.headers['content-encoding'], encoding === 'gzip' ? 'gzip' : undefined)
    res.once('data', () => current?.emit('close'))
    // Hang ceiling only: the cut comes at once; with `wrap` it never came.
    const outcome = await Promise.race([
      (async () => { await res.toArray(); return 'complete' })().catch(() => 'cut'),
      new Promise<string>((resolve) => setTimeout(() => resolve('hang'), 10_000).unref())
    ])
    t.equal(outcome, 'cut', `${encoding}: the client sees the body cut (aborted), not a complete answer nor a hang`)
  }
})

test('backpressure: a large streams1 body is paused while the wrapper is full and arrives whole', async (t) => {
  const big = Array.from({ length: 400 }, (_, i) => `${i} ${text(1000)}\n`)
  let pauses = 0
  const app = await build({}, (app) => {
    app.get('/big', (_request, reply) => {
      const stream = throughLike()
      let paused = false
      let next = 0
      const pump = (): void => {
        // eslint-disable-next-line no-unmodified-loop-condition -- `pause`, called from within `emit`, sets `paused`
        while (!paused && next < big.length) stream.emit('data', big[next++])
        if (next === big.length && !paused) {
          next++
          stream.emit('end')
          stream.emit('close')
        }
      }
      stream.pause = () => { paused = true; pauses++ }
      stream.resume = () => { if (paused) { paused = false; setImmediate(pump) } }
      reply.type('text/plain').send(stream)
      setImmediate(pump)
    })
  })
  const { port, agent } = await listening(t, app)
  for (const encoding of ['gzip', 'identity']) {
    const { res, body } = await fetchRaw(port, '/big', agent, encoding)
    t.equal(res.statusCode, 200, encoding)
    t.equal((encoding === 'gzip' ? gunzipSync(body) : body).toString(), big.join(''), `${encoding}: 400 KB whole`)
  }
  t.ok(pauses > 0, 'the old stream was paused at least once (its data did not pile up unbounded)')
})
