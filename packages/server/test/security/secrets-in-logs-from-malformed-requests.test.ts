// Issue 13, item 5: with the logger at trace, Fastify's default client-error
// handler logged the error of every malformed request with Node's
// `rawPacket` — the request's bytes, Authorization and Cookie included.
// Here: malformed requests over a raw socket, each carrying credentials;
// nothing of them reaches any log line at any level (also not as the byte
// array pino writes for a Buffer), and each gets the answer Node would give.
// (packages/server/test/secrets-not-logged.test.ts covers the well-formed
// ways in, at trace too.)
import { test } from 'tap'
import type { AddressInfo } from 'node:net'
import type { FastifyBaseLogger } from 'fastify'
import pino from 'pino'
import { AppServer, RoutedApplication, route } from '@fastify-gatehouse/server'
import { basic, hs256 } from '../helpers/credentials.js'
import { rawExchange, statusOf } from '../helpers/raw-http.js'

class Api extends RoutedApplication {
  @route('/private', { method: 'POST', authRule: 'ops' })
  async private () { return { ok: true } }
}

const JWT_SECRET = 'malformed-test-hs256-secret-32-bytes!'
const PASSWORD = 'root-Pa55word-in-a-bad-request'
const SESSION = 'S3ssionIdInABadRequest0123456789abcdefABCDEF'
const JWT = hs256({ sub: 'joe', exp: Math.floor(Date.now() / 1000) + 600 }, JWT_SECRET)

function head (lines: string[]): string {
  return lines.join('\r\n') + '\r\n\r\n'
}

const credentials = [`Authorization: ${basic('root', PASSWORD)}`, `Cookie: theme=dark; session_id=${SESSION}`]
const bearer = [`Authorization: Bearer ${JWT}`, `Cookie: session_id=${SESSION}`]

const malformed: Array<[string, string, number]> = [
  ['a header line without a colon', head(['POST /private HTTP/1.1', 'Host: 127.0.0.1', ...credentials, 'this line is not a header']), 400],
  ['a header value with a control character', head(['POST /private HTTP/1.1', 'Host: 127.0.0.1', ...bearer, 'X-Odd: a\u0001b']), 400],
  ['an oversized head', head(['POST /private HTTP/1.1', 'Host: 127.0.0.1', ...credentials, `X-Filler: ${'f'.repeat(20_000)}`]), 431],
  ['a bad method', head(['P@ST /private HTTP/1.1', 'Host: 127.0.0.1', ...credentials]), 400],
  ['a bad request target', head(['POST /pri\u0001vate HTTP/1.1', 'Host: 127.0.0.1', ...bearer]), 400],
  ['a bad HTTP version', head(['POST /private HTTP/9.Z', 'Host: 127.0.0.1', ...credentials]), 400],
  ['a bad chunk size', head(['POST /private HTTP/1.1', 'Host: 127.0.0.1', ...credentials, 'Content-Type: application/json', 'Transfer-Encoding: chunked']) + `zz\r\n{"password":"${PASSWORD}"}\r\n0\r\n\r\n`, 400],
  ['chunked with Content-Length', head(['POST /private HTTP/1.1', 'Host: 127.0.0.1', ...bearer, 'Content-Length: 5', 'Transfer-Encoding: chunked']) + '0\r\n\r\n', 400],
  ['a bare LF in the head', `POST /private HTTP/1.1\r\nHost: 127.0.0.1\r\n${credentials.join('\n')}\r\n\r\n`, 400]
]

test('malformed requests carrying credentials leave nothing of them in the logs, at trace', async (t) => {
  const raw: string[] = []
  const logger = pino({ level: 'trace' }, { write: (line: string) => { raw.push(line) } }) as FastifyBaseLogger
  const server = new AppServer({
    primary: new Api(),
    logger,
    auth: { basic: { root: { password: PASSWORD, tags: 'ops' } }, jwt: [{ name: 'main', secret: JWT_SECRET, algorithm: 'HS256' }] },
    login: true,
    middleware: { logging: { includeHeaders: true, includeQuery: true } }
  })
  t.teardown(() => server.close())
  await server.serve('127.0.0.1', 0)
  const { port } = server.fastify.server.address() as AddressInfo

  for (const [what, request, status] of malformed) {
    const answer = await rawExchange(port, request)
    t.equal(statusOf(answer), status, `${what}: ${status}`)
    t.match(answer, /\r\nConnection: close\r\n/i, `${what}: the connection is closed`)
    t.notMatch(answer, /root-Pa55word|S3ssionId/, `${what}: the answer echoes nothing`)
  }
  // A well-formed request in between still works.
  const fine = await rawExchange(port, head(['POST /private HTTP/1.1', 'Host: 127.0.0.1', `Authorization: ${basic('root', PASSWORD)}`, 'Content-Length: 0', 'Connection: close']))
  t.equal(statusOf(fine), 200, 'a well-formed request on its own connection')

  const all = raw.join('\n')
  t.ok(raw.some((l) => l.includes('"msg":"client error: HPE_')), 'client errors are logged, by code')
  t.notMatch(all, /rawPacket/, 'no raw packet in any line')
  const b64 = Buffer.from(`root:${PASSWORD}`).toString('base64')
  for (const secret of [PASSWORD, b64, SESSION, JWT.split('.')[2]!, JWT]) {
    t.notOk(all.includes(secret), `${secret.slice(0, 10)}… is not logged`)
    // pino writes a Buffer as {"type":"Buffer","data":[…bytes…]}.
    t.notOk(all.includes([...Buffer.from(secret)].join(',')), `${secret.slice(0, 10)}… is not logged as bytes`)
  }
})

test('the handler alone: a Fastify app using @fastify-gatehouse/logging\'s clientErrorHandler', async (t) => {
  const { default: Fastify } = await import('fastify')
  const { clientErrorHandler } = await import('@fastify-gatehouse/logging')
  const raw: string[] = []
  const app = Fastify({ loggerInstance: pino({ level: 'trace' }, { write: (line: string) => { raw.push(line) } }) as FastifyBaseLogger, clientErrorHandler })
  app.get('/', async () => 'ok')
  t.teardown(() => app.close())
  await app.listen({ host: '127.0.0.1', port: 0 })
  const { port } = app.server.address() as AddressInfo
  const answer = await rawExchange(port, head(['GET / HTTP/1.1', 'Host: 127.0.0.1', ...credentials, 'broken']))
  t.equal(statusOf(answer), 400)
  const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>
  t.same(body, { statusCode: 400, code: 'HPE_INVALID_HEADER_TOKEN', error: 'Bad Request', message: 'Malformed request' })
  t.notMatch(raw.join('\n'), new RegExp(`${PASSWORD}|${SESSION}|rawPacket|${[...Buffer.from(SESSION)].join(',')}`))
  t.ok(raw.some((l) => l.includes('client error: HPE_INVALID_HEADER_TOKEN')))
})
