// Issue 13, items 5 and 13 (found while fixing them): with the access log
// off, Fastify's own request lines ("incoming request", the 404 line, the
// 500 line) logged the URL as sent, so `?access_token=…`, a `code` or a JWT
// in the path reached the log at info. AppServer now writes them through
// RedactingLogController.
import { test } from 'tap'
import type { FastifyBaseLogger } from 'fastify'
import Fastify from 'fastify'
import pino from 'pino'
import { RedactingLogController } from '@fastify-gatehouse/logging'
import { AppServer, RoutedApplication, route } from '@fastify-gatehouse/server'
import { hs256 } from '../helpers/credentials.js'

const JWT = hs256({ sub: 'someone', exp: 4_000_000_000 }, 'a-secret-of-at-least-thirty-two-bytes')
const SECRETS = ['Query-S3cret-token', 'Oidc-C0de-value', JWT, 'Api-K3y-in-apikey']

class Api extends RoutedApplication {
  @route('/open')
  async open () { return { ok: true } }

  @route('/boom')
  async boom (): Promise<never> { throw new Error('handler failed') }
}

const requests = [
  '/open?access_token=Query-S3cret-token&page=2',
  '/open?code=Oidc-C0de-value&state=x',
  `/missing/${JWT}`,
  '/boom?apikey=Api-K3y-in-apikey'
]

test('AppServer without the access log: Fastify\'s request lines carry redacted URLs', async (t) => {
  const lines: string[] = []
  const logger = pino({ level: 'info' }, { write: (line: string) => { lines.push(line) } }) as FastifyBaseLogger
  const server = new AppServer({ primary: new Api(), logger })
  t.teardown(() => server.close())
  const statuses = []
  for (const url of requests) statuses.push((await server.inject(url)).statusCode)
  t.same(statuses, [200, 200, 404, 500])
  const log = lines.join('')
  t.match(log, /"msg":"incoming request"/, 'the request lines are still written')
  t.match(log, /"url":"\/open\?access_token=\[REDACTED\]&page=2"/, 'a secret query value is masked, the rest kept')
  t.match(log, /Route GET:\/missing\/\[REDACTED\] not found/, 'a JWT in the path of a 404 is masked')
  for (const secret of SECRETS) t.notOk(log.includes(secret), `no log line holds ${secret.slice(0, 12)}…`)
})

test('the controller alone, on a plain Fastify app', async (t) => {
  const lines: string[] = []
  const app = Fastify({
    loggerInstance: pino({ level: 'info' }, { write: (line: string) => { lines.push(line) } }) as FastifyBaseLogger,
    logController: new RedactingLogController()
  })
  t.teardown(() => app.close())
  app.get('/open', async () => ({ ok: true }))
  t.equal((await app.inject('/open?token=Query-S3cret-token')).statusCode, 200)
  const log = lines.join('')
  t.match(log, /"url":"\/open\?token=\[REDACTED\]"/)
  t.notOk(log.includes('Query-S3cret-token'))
  t.match(log, /"msg":"request completed"/)
})
