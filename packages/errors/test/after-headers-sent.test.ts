import { test } from 'tap'
import { request } from 'node:http'
import { Readable } from 'node:stream'
import { build } from './helpers/build.js'
import { HANG_CEILING_MS } from '../../../test-helpers/wait.js'

// Behaviour only a real socket shows: what the client receives when the
// failure comes after part of the response went out.
async function get (port: number, path: string): Promise<{ status?: number, body: string, aborted: boolean }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      let body = ''
      res.on('data', (c) => { body += c })
      res.on('end', () => resolve({ status: res.statusCode, body, aborted: false }))
      res.on('aborted', () => resolve({ status: res.statusCode, body, aborted: true }))
      res.on('error', () => resolve({ status: res.statusCode, body, aborted: true }))
    })
    req.on('error', () => resolve({ body: '', aborted: true }))
    // A response that neither ends nor is cut is a failure of its own (not
    // "aborted"): only a hang gets this far, however busy the machine.
    req.setTimeout(HANG_CEILING_MS, () => { reject(new Error(`${path}: neither ended nor cut within ${HANG_CEILING_MS} ms`)); req.destroy() })
    req.end()
  })
}

test('an error after headers were sent is logged, not double-sent, and the server lives on', async (t) => {
  const { app, logs } = await build({}, (app) => {
    app.get('/raw-then-throw', async (_req, reply) => {
      reply.raw.writeHead(200, { 'content-type': 'text/plain' })
      reply.raw.write('partial')
      throw new Error('late failure')
    })
    app.get('/stream-breaks', async (_req, reply) => {
      let sent = false
      const body = new Readable({
        read () {
          if (!sent) { sent = true; this.push('x'.repeat(1000)) } else this.destroy(new Error('stream broke'))
        }
      })
      return reply.type('text/plain').send(body)
    })
    app.get('/send-then-throw', async (_req, reply) => {
      reply.send('first')
      throw new Error('after send')
    })
    app.get('/ok', async () => 'still here')
  })
  t.teardown(() => app.close())
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as { port: number }

  const raw = await get(port, '/raw-then-throw')
  t.equal(raw.status, 200)
  t.ok(raw.aborted, 'the client sees the response cut, not a clean end')
  t.notMatch(raw.body, /Internal Server Error/, 'no second response written into the first')
  t.ok(logs.some((l) => l.msg === 'error after the response started; connection closed' && l.err?.message === 'late failure'))

  const stream = await get(port, '/stream-breaks')
  t.ok(stream.aborted, 'a broken stream is cut')

  const sent = await get(port, '/send-then-throw')
  t.equal(sent.status, 200)
  t.equal(sent.body, 'first')
  t.ok(logs.some((l) => l.level === 50 && l.err?.message === 'after send'), 'Fastify logs the late rejection')

  const ok = await get(port, '/ok')
  t.same(ok, { status: 200, body: 'still here', aborted: false })
})
