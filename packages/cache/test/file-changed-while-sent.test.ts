// A file that changes between the stat its validators come from and the read
// of its bytes (issue 25, item 6; D-CACHE-13). The race is made deterministic
// by an onSend hook registered after the cache's: it runs once the cache has
// decided the response and before Fastify reads a byte of the body.
import { once } from 'node:events'
import { mkdtempSync, readdirSync, readlinkSync, renameSync, rmSync, truncateSync, utimesSync, writeFileSync } from 'node:fs'
import { connect, type AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t0, { test, type Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { HANG_CEILING_MS, waitUntil } from '../../../test-helpers/wait.js'
import { build, MTIME } from './helpers/build.js'

const dir = mkdtempSync(join(tmpdir(), 'gatehouse-cache-race-'))
t0.teardown(() => rmSync(dir, { recursive: true, force: true }))
const FILE = join(dir, 'big.bin')
const LENGTH = 200 * 1024
const BYTES = Buffer.alloc(LENGTH)
for (let i = 0; i < LENGTH; i++) BYTES[i] = (i * 7 + (i >> 9)) & 0xff
const OTHER = Buffer.alloc(LENGTH, 0x2a)
const TAG = `"${LENGTH.toString(16)}-${MTIME.getTime().toString(16)}"`

function reset (): void {
  writeFileSync(FILE, BYTES)
  utimesSync(FILE, MTIME, MTIME)
}

/**
 * The app of helpers/build.ts plus the seam: a request with `x-truncate: n`
 * has the file cut to n bytes, one with `x-replace` has another file of the
 * same length renamed over its path, after the cache's onSend hook.
 */
async function listening (t: Test): Promise<{ app: FastifyInstance, port: number }> {
  const app = await build(FILE, true, (a) => {
    a.addHook('onSend', async (request) => {
      const cut = request.headers['x-truncate']
      if (typeof cut === 'string') truncateSync(FILE, Number(cut))
      if (request.headers['x-replace'] !== undefined) {
        const next = join(dir, 'next.bin')
        writeFileSync(next, OTHER)
        renameSync(next, FILE)
      }
    })
  })
  t.teardown(() => app.close())
  await app.listen({ port: 0, host: '127.0.0.1' })
  return { app, port: (app.server.address() as AddressInfo).port }
}

interface Exchange {
  /** Every byte the server sent on the connection. */
  readonly raw: Buffer
  /** Whether the server closed the connection (before the ceiling). */
  readonly closed: boolean
}

/**
 * Two requests pipelined on one keep-alive connection, as a proxy sends
 * them; reads until the server closes it or both answers are in, with a
 * hang ceiling (a server that keeps the connection open without sending
 * anything more).
 */
async function pipelined (port: number, first: Record<string, string>, path = '/stream'): Promise<Exchange> {
  const socket = connect(port, '127.0.0.1')
  await once(socket, 'connect')
  const head = Object.entries(first).map(([k, v]) => `${k}: ${v}\r\n`).join('')
  socket.write(`GET ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\n${head}\r\nGET /json HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n`)
  const chunks: Buffer[] = []
  let closed = false
  await new Promise<void>((resolve) => {
    const ceiling = setTimeout(resolve, HANG_CEILING_MS)
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk)
      if (Buffer.concat(chunks).includes('{"hello":"world"}')) {
        clearTimeout(ceiling)
        resolve()
      }
    })
    socket.on('close', () => {
      closed = true
      clearTimeout(ceiling)
      resolve()
    })
    socket.on('error', () => {})
  })
  socket.destroy()
  return { raw: Buffer.concat(chunks), closed }
}

/** The first response as a client reads it: status, headers, and the body bytes that followed the head. */
function firstResponse (raw: Buffer): { status: number, headers: Record<string, string>, after: Buffer } {
  const end = raw.indexOf('\r\n\r\n')
  const lines = raw.subarray(0, end).toString('latin1').split('\r\n')
  const headers: Record<string, string> = {}
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':')
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim()
  }
  return { status: Number(lines[0]!.split(' ')[1]), headers, after: raw.subarray(end + 4) }
}

function statusLines (raw: Buffer): number {
  return raw.toString('latin1').split('HTTP/1.1 ').length - 1
}

test('a 206 whose file shrank below the range after fstat: the connection closes, the next response is never read as its body', async (t) => {
  reset()
  const { port } = await listening(t)
  const { raw, closed } = await pipelined(port, { range: 'bytes=65536-131071', 'x-truncate': '1000' })
  t.ok(closed, 'the server closed the connection')
  // No byte of the range exists any more, so the 206's head (Content-Length:
  // 65536) never left: the client sees a connection closed without an
  // answer (a proxy answers 502, a browser retries the GET), never a 206
  // followed by the next response where its body should be.
  t.equal(raw.length, 0, 'nothing was sent on the connection')
  t.equal(statusLines(raw), 0, 'the pipelined second request was never answered on this connection')
})

test('a 206 whose file shrank mid-range: the bytes that exist, then the connection closes', async (t) => {
  reset()
  const { port } = await listening(t)
  const { raw, closed } = await pipelined(port, { range: 'bytes=0-131071', 'x-truncate': '70000' })
  const first = firstResponse(raw)
  t.equal(first.status, 206)
  t.equal(first.headers['content-length'], '131072')
  t.ok(closed, 'closed')
  t.ok(first.after.equals(BYTES.subarray(0, 70000)), 'exactly the 70 000 bytes left, the file\'s own')
  t.equal(statusLines(raw), 1)
})

test('a whole-file 200 promises the fstat\'ed length; a file that shrank closes the connection', async (t) => {
  reset()
  const { port } = await listening(t)
  const { raw, closed } = await pipelined(port, { 'x-truncate': '5000' })
  const first = firstResponse(raw)
  t.equal(first.status, 200)
  t.equal(first.headers['content-length'], String(LENGTH), 'the length fstat gave, not chunked')
  t.equal(first.headers['transfer-encoding'], undefined)
  t.equal(first.headers.etag, TAG)
  t.ok(closed, 'closed')
  t.ok(first.after.equals(BYTES.subarray(0, 5000)))
  t.equal(statusLines(raw), 1)
})

test('a file renamed over the path after fstat: the bytes of the file the validators describe, and the connection goes on', async (t) => {
  reset()
  const { port } = await listening(t)
  for (const [headers, expected, status] of [
    [{ range: 'bytes=1000-1999', 'x-replace': '1' }, BYTES.subarray(1000, 2000), 206],
    [{ 'x-replace': '1' }, BYTES, 200]
  ] as const) {
    reset()
    const { raw, closed } = await pipelined(port, headers)
    const first = firstResponse(raw)
    t.equal(first.status, status)
    t.equal(first.headers.etag, TAG, 'the ETag of the file that was opened')
    t.notOk(closed, 'nothing was promised that was not sent')
    const length = Number(first.headers['content-length'])
    t.ok(first.after.subarray(0, length).equals(expected), `${status}: the opened file's bytes, not the new file's`)
    t.equal(statusLines(raw), 2, 'the second response follows, framed')
    t.ok(raw.subarray(-17).equals(Buffer.from('{"hello":"world"}')))
  }
})

test('an unchanged file: 200 and 206 keep the connection, and every descriptor is closed (304, 412, 416, HEAD)', async (t) => {
  reset()
  const { app, port } = await listening(t)
  const whole = await pipelined(port, {})
  t.notOk(whole.closed)
  t.ok(firstResponse(whole.raw).after.subarray(0, LENGTH).equals(BYTES))
  const ranged = await pipelined(port, { range: 'bytes=-10' })
  t.ok(firstResponse(ranged.raw).after.subarray(0, 10).equals(BYTES.subarray(LENGTH - 10)))
  t.equal(statusLines(ranged.raw), 2)

  // Descriptors of this process open on FILE (Linux): each outcome must close its own.
  const openOnFile = (): number => readdirSync('/proc/self/fd').filter((fd) => {
    try { return readlinkSync(`/proc/self/fd/${fd}`) === FILE } catch { return false }
  }).length
  for (const headers of [{ 'if-none-match': TAG }, { 'if-match': '"x"' }, { range: `bytes=${LENGTH}-` }, { range: 'bytes=0-9' }, {}]) {
    for (let i = 0; i < 10; i++) {
      await app.inject({ method: 'GET', url: '/stream', headers })
      await app.inject({ method: 'HEAD', url: '/stream', headers })
    }
  }
  await waitUntil(() => openOnFile() === 0, { what: 'every descriptor on the file closed' })
  const head = await app.inject({ method: 'HEAD', url: '/stream' })
  t.equal(head.headers['content-length'], String(LENGTH), 'HEAD has the GET\'s length')
})
