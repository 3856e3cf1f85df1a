// "Non-HTTP scopes pass through": a WebSocket upgrade and `OPTIONS *` are
// neither answered nor decorated by cors. Real sockets: inject cannot send
// an asterisk-form request target.
import { test } from 'tap'
import { connect } from 'node:net'
import { build } from './helpers/build.js'

function raw (port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(text))
    let data = ''
    socket.setEncoding('latin1')
    socket.on('data', (chunk: string) => { data += chunk })
    socket.on('end', () => resolve(data))
    socket.on('error', reject)
  })
}

test('OPTIONS * gets no preflight answer and no CORS headers', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  await app.listen({ host: '127.0.0.1', port: 0 })
  const port = (app.server.address() as { port: number }).port
  const res = await raw(port, 'OPTIONS * HTTP/1.1\r\nHost: localhost\r\nOrigin: https://a.example\r\nAccess-Control-Request-Method: GET\r\nConnection: close\r\n\r\n')
  t.match(res, /^HTTP\/1\.1 404 /, 'not a 204 preflight answer')
  t.notMatch(res, /access-control-/i)
})

test('a WebSocket upgrade request gets no CORS headers and is not answered by cors', async (t) => {
  const app = await build({ allowOrigins: 'https://a.example', allowCredentials: true })
  t.teardown(() => app.close())
  app.server.on('upgrade', (_req, socket) => {
    socket.end('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n')
  })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const port = (app.server.address() as { port: number }).port
  const res = await raw(port, 'GET /open HTTP/1.1\r\nHost: localhost\r\nOrigin: https://a.example\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n')
  // Node hands a request with Upgrade to an 'upgrade' listener and never to
  // Fastify's hooks: shown here as the premise, cors cannot touch it.
  t.match(res, /^HTTP\/1\.1 101 /, 'the server\'s upgrade listener answered, outside Fastify')

  // The same request through Fastify's routes (as @fastify/websocket routes
  // it): served, with no CORS header added.
  const routed = await app.inject({ url: '/open', headers: { origin: 'https://a.example', connection: 'Upgrade', upgrade: 'websocket' } })
  t.equal(routed.statusCode, 200)
  t.notOk(routed.headers['access-control-allow-origin'])
  t.notOk(routed.headers['access-control-allow-credentials'])
})
