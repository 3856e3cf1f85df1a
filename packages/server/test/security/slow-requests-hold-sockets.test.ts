// Issue 13, item 9: slow requests were never timed out (Fastify's
// requestTimeout and connectionTimeout are 0: a body trickled a byte at a
// time held a socket for minutes), and AppServer passed no server limits
// through. Now: safe defaults, a `server` option, and the same in the
// config file's `server:` section. Every test uses small configured limits
// and polls with a generous ceiling: nothing here asserts how fast. The
// trickles would take 40-50 s to complete against limits of 0.5-1 s, a margin
// no busy machine closes. The config file's server section:
// slow-requests-config-file.test.ts.
import { test } from 'tap'
import type { AddressInfo } from 'node:net'
import { AppServer, RoutedApplication, route } from '@fastify-gatehouse/server'
import { openRaw, statusOf, trickle, untilClosed, type RawConnection } from '../helpers/raw-http.js'
import { waitUntil } from '../../../../test-helpers/wait.js'

let release: () => void = () => {}
const hanging = new Promise<void>((resolve) => { release = resolve })

class Echo extends RoutedApplication {
  @route('/echo', { method: 'POST' })
  async echo (request: { body: unknown }) { return { received: JSON.stringify(request.body ?? null).length } }

  @route('/hang')
  async hang () { await hanging; return { late: true } }

  @route('/')
  async root () { return { ok: true } }
}

async function listening (server: AppServer): Promise<number> {
  await server.serve('127.0.0.1', 0)
  return (server.fastify.server.address() as AddressInfo).port
}

const SLOW_BODY_HEAD = 'POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n'
const BODY = `{"pad":"${'x'.repeat(990)}"}`

test('the defaults a careful operator expects', async (t) => {
  const server = new AppServer({ logger: false, primary: new Echo() })
  t.teardown(() => server.close())
  await server.ready()
  const node = server.fastify.server
  t.equal(node.requestTimeout, 60_000, 'a request must arrive within 60 s')
  t.equal(node.headersTimeout, 20_000, 'its head within 20 s')
  t.equal(node.keepAliveTimeout, 72_000, 'idle keep-alive connections close after 72 s')
  t.equal(node.timeout, 120_000, 'a connection silent for 120 s is closed')
  t.equal(node.maxConnections, 10_000, 'at most 10 000 connections')
  t.equal(server.fastify.initialConfig.bodyLimit, 1_048_576, 'bodies up to 1 MiB')
})

test('a body trickled after the head is cut off with 408 after requestTimeout, on every connection', async (t) => {
  const server = new AppServer({ logger: false, primary: new Echo(), server: { requestTimeout: 1000, headersTimeout: 500 } })
  t.teardown(() => server.close())
  const port = await listening(server)
  const connections = await Promise.all(Array.from({ length: 20 }, async () => await openRaw(port)))
  const sent = await Promise.all(connections.map(async (connection) => {
    connection.socket.write(SLOW_BODY_HEAD)
    // 1000 bytes at one per 50 ms take at least 50 s; requestTimeout is 1 s.
    return await trickle(connection, BODY, 50)
  }))
  for (const [i, connection] of connections.entries()) {
    t.ok(connection.isClosed(), `connection ${i} closed by the server`)
    t.ok(sent[i]! < BODY.length, `connection ${i} cut before its body was complete`)
    t.equal(statusOf(connection.received()), 408, `connection ${i} told 408`)
  }
})

test('a head trickled line by line is cut off with 408 after headersTimeout, on every connection', async (t) => {
  const server = new AppServer({ logger: false, primary: new Echo(), server: { requestTimeout: 5000, headersTimeout: 500 } })
  t.teardown(() => server.close())
  const port = await listening(server)
  const connections = await Promise.all(Array.from({ length: 20 }, async () => await openRaw(port)))
  const header = `X-Slow: ${'s'.repeat(2000)}\r\n\r\n`
  const sent = await Promise.all(connections.map(async (connection) => {
    connection.socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n')
    return await trickle(connection, header, 20)
  }))
  for (const [i, connection] of connections.entries()) {
    t.ok(sent[i]! < header.length, `connection ${i} cut before its head was complete`)
    t.equal(statusOf(connection.received()), 408, `connection ${i} told 408`)
  }
})

test('idle keep-alive connections and silent connections are closed', async (t) => {
  const server = new AppServer({ logger: false, primary: new Echo(), server: { keepAliveTimeout: 300, connectionTimeout: 500 } })
  t.teardown(() => { release(); return server.close() })
  const port = await listening(server)
  const idle = await openRaw(port)
  idle.socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n')
  await untilClosed(idle)
  t.equal(statusOf(idle.received()), 200, 'answered, then closed once idle')
  const silent = await openRaw(port)
  silent.socket.write('GET /hang HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n')
  await untilClosed(silent)
  t.equal(silent.received(), '', 'a handler that never answers does not hold the connection')
})

test('a body over bodyLimit gets 413 with Fastify\'s code', async (t) => {
  const server = new AppServer({ logger: false, primary: new Echo(), server: { bodyLimit: 1000 } })
  t.teardown(() => server.close())
  const port = await listening(server)
  const big = await fetch(`http://127.0.0.1:${port}/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ pad: 'x'.repeat(2000) }) })
  t.equal(big.status, 413)
  t.match(await big.json(), { statusCode: 413, code: 'FST_ERR_CTP_BODY_TOO_LARGE', error: 'Payload Too Large' })
  const small = await fetch(`http://127.0.0.1:${port}/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ pad: 'x'.repeat(900) }) })
  t.equal(small.status, 200, 'a body under the limit passes')
})

test('connections over maxConnections are refused at accept, and logged', async (t) => {
  const warnings: string[] = []
  const { default: pino } = await import('pino')
  const logger = pino({ level: 'warn' }, { write: (l: string) => { warnings.push(l) } })
  const server = new AppServer({ primary: new Echo(), logger, server: { maxConnections: 2, keepAliveTimeout: 60_000 } })
  t.teardown(() => server.close())
  const port = await listening(server)
  const held: RawConnection[] = []
  for (let i = 0; i < 2; i++) {
    const connection = await openRaw(port)
    connection.socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n')
    // Answered, so accepted and counted; kept open by keep-alive.
    await waitUntil(() => statusOf(connection.received()) !== undefined, { everyMs: 50, what: `an answer on connection ${i}` })
    t.equal(statusOf(connection.received()), 200, `connection ${i} served and kept`)
    held.push(connection)
  }
  const third = await openRaw(port)
  third.socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n')
  await untilClosed(third)
  t.equal(third.received(), '', 'the third connection is closed unanswered')
  t.ok(warnings.some((l) => l.includes('maxConnections reached')), 'a warning says why')
  for (const connection of held) connection.socket.destroy()
})

test('bad limits are boot errors naming the key', async (t) => {
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [{ requestTimout: 1000 }, /^server\.requestTimout: unknown option$/],
    [{ request_timeout: 1000 }, /^server\.request_timeout: unknown option \(options are camelCase: requestTimeout\)$/],
    [{ requestTimeout: -1 }, /^server\.requestTimeout: expected integer to be greater or equal to 0$/],
    [{ requestTimeout: 1.5 }, /^server\.requestTimeout: expected integer$/],
    [{ keepAliveTimeout: 0 }, /^server\.keepAliveTimeout: expected integer to be greater or equal to 1$/],
    [{ bodyLimit: 0 }, /^server\.bodyLimit: expected integer to be greater or equal to 1$/],
    [{ maxConnections: '10' }, /^server\.maxConnections: expected integer$/],
    [{ connectionTimeout: 2 ** 31 }, /^server\.connectionTimeout: expected integer to be less or equal to 2147483647$/],
    [{ requestTimeout: 10_000, headersTimeout: 30_000 }, /^server\.headersTimeout: 30000 ms must not exceed requestTimeout \(10000 ms\)/]
  ]
  for (const [limits, message] of cases) {
    const server = new AppServer({ logger: false, server: limits as never })
    await t.rejects(server.ready(), { code: 'GATEHOUSE_CORE_INVALID_OPTIONS', message }, JSON.stringify(limits))
    await server.close()
  }
  const short = new AppServer({ logger: false, server: { requestTimeout: 5000 } })
  t.teardown(() => short.close())
  await short.ready()
  t.equal(short.fastify.server.headersTimeout, 5000, 'an unset headersTimeout follows a shorter requestTimeout')
})
