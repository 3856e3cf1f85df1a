// Over a real socket, with node's http client (which never decodes bodies):
// what a client actually receives.
import { createReadStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import t0, { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { build, noise, text } from './helpers/build.js'

const dir = mkdtempSync(join(tmpdir(), 'gatehouse-compression-'))
t0.teardown(() => rmSync(dir, { recursive: true, force: true }))
const FILE = join(dir, 'page.html')
const PAGE = `<html><body>${text(50_000)}</body></html>`
writeFileSync(FILE, PAGE)

interface Received { status: number, headers: IncomingHttpHeaders, body: Buffer }

function get (port: number, path: string, headers: Record<string, string> = { 'accept-encoding': 'gzip' }): Promise<Received> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end()
  })
}

async function listen (): Promise<{ app: FastifyInstance, port: number }> {
  const app = await build({}, (app) => {
    app.get('/noise', async (_req, reply) => reply.type('text/plain').send(noise(4000)))
    app.get('/file', async (_req, reply) => reply.type('text/html').send(createReadStream(FILE)))
  })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const address = app.server.address()
  return { app, port: typeof address === 'object' && address !== null ? address.port : 0 }
}

test('a gzip response decodes to the original bytes with zlib.gunzipSync', async (t) => {
  const { app, port } = await listen()
  t.teardown(() => app.close())
  const res = await get(port, '/json?n=20000')
  t.equal(res.status, 200)
  t.equal(res.headers['content-encoding'], 'gzip')
  t.equal(res.headers.vary, 'Accept-Encoding')
  t.equal(res.headers['content-length'], String(res.body.length), 'the compressed length')
  t.equal(res.body[0], 0x1f)
  t.equal(res.body[1], 0x8b)
  t.equal(gunzipSync(res.body).toString(), JSON.stringify({ data: text(20000) }))
})

test('just under minimum_size is sent as is; just over is gzipped', async (t) => {
  const { app, port } = await listen()
  t.teardown(() => app.close())
  const under = await get(port, '/text?n=499')
  t.equal(under.status, 200)
  t.equal(under.headers['content-encoding'], undefined)
  t.equal(under.headers['content-length'], '499')
  t.equal(under.body.toString(), text(499))
  const over = await get(port, '/text?n=501')
  t.equal(over.headers['content-encoding'], 'gzip')
  t.equal(over.headers['content-length'], String(over.body.length))
  t.equal(gunzipSync(over.body).toString(), text(501))
})

test('a body that would grow is sent uncompressed', async (t) => {
  const { app, port } = await listen()
  t.teardown(() => app.close())
  const res = await get(port, '/noise')
  t.equal(res.status, 200)
  t.equal(res.headers['content-encoding'], undefined)
  t.equal(res.headers['content-length'], '4000')
  t.same(res.body, noise(4000))
})

test('a streamed file is compressed as it flows (chunked, no Content-Length)', async (t) => {
  const { app, port } = await listen()
  t.teardown(() => app.close())
  const res = await get(port, '/file')
  t.equal(res.status, 200)
  t.equal(res.headers['content-encoding'], 'gzip')
  t.equal(res.headers['content-length'], undefined)
  t.equal(res.headers['transfer-encoding'], 'chunked')
  t.equal(gunzipSync(res.body).toString(), PAGE)
  const plain = await get(port, '/file', {})
  t.equal(plain.headers['content-encoding'], undefined)
  t.equal(plain.body.toString(), PAGE)
})

test('HEAD over a raw socket: the compressed length is announced and no byte of body follows', async (t) => {
  const { app, port } = await listen()
  t.teardown(() => app.close())
  const gzipped = await get(port, '/json?n=20000')
  const raw = await new Promise<string>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write('HEAD /json?n=20000 HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n')
    })
    const chunks: Buffer[] = []
    socket.on('data', (c: Buffer) => chunks.push(c))
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('latin1')))
    socket.on('error', reject)
  })
  const end = raw.indexOf('\r\n\r\n')
  t.ok(end > 0)
  t.equal(raw.length, end + 4, 'nothing after the header section')
  const head = raw.slice(0, end).toLowerCase()
  t.match(head, /^http\/1\.1 200 ok\r\n/)
  t.match(head, /\r\ncontent-encoding: gzip\r\n/)
  t.match(head, /\r\nvary: accept-encoding\r\n/)
  t.match(head, new RegExp(`\\r\\ncontent-length: ${gzipped.body.length}\\r\\n`), 'the length GET sends')
})
