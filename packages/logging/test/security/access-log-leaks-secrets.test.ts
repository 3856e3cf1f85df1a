// Issue 13, item 13: the access log wrote secrets that the redaction did not
// recognise — query names `pw`, `pass`, `bearer`; a JWT in the path or
// nested inside another parameter's value; header names containing
// `session`.
import { test } from 'tap'
import Fastify, { LogController, type FastifyBaseLogger } from 'fastify'
import pino from 'pino'
import { middlewareChain } from '@fastify-gatehouse/core'
import { errorsPlugin } from '@fastify-gatehouse/errors'
import { loggingPlugin } from '@fastify-gatehouse/logging'

const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.UEFUSFNJR05BVFVSRQ'
const NESTED_JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJib2IifQ.TkVTVEVEU0lHTkFUVVJF'

async function build (options: Record<string, unknown>) {
  const lines: string[] = []
  const app = Fastify({
    loggerInstance: pino({ level: 'trace' }, { write: (l: string) => { lines.push(l) } }) as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true })
  })
  await middlewareChain(app, { middleware: { logging: options } }, { components: [errorsPlugin, loggingPlugin] })
  app.get('/callback/:token', async () => 'ok')
  app.get('/login', async () => 'ok')
  return { app, lines }
}

const requests = [
  { url: '/login?pw=PWSECRET&pass=PASSSECRET&bearer=BEARERSECRET&page=2' },
  { url: `/callback/${JWT}` },
  { url: `/login?next=/cb?token=${NESTED_JWT}` },
  { url: `/login?next=/cb?foo=${NESTED_JWT}` },
  { url: `/login?next=${encodeURIComponent('/cb?pass=ENCODEDPASS')}` },
  { url: '/login', headers: { 'x-session-id': 'SESSIONHEADERSECRET', session: 'BARESESSIONSECRET', 'x-user-jwt': 'XJWTSECRET' } }
]
const secrets = ['PWSECRET', 'PASSSECRET', 'BEARERSECRET', 'UEFUSFNJR05BVFVSRQ', 'TkVTVEVEU0lHTkFUVVJF', 'ENCODEDPASS', 'SESSIONHEADERSECRET', 'BARESESSIONSECRET', 'XJWTSECRET']

for (const options of [{ includeQuery: true, includeHeaders: true }, {}]) {
  test(`no secret reaches the access log (${JSON.stringify(options)})`, async (t) => {
    const { app, lines } = await build(options)
    t.teardown(() => app.close())
    for (const request of requests) t.equal((await app.inject(request)).statusCode, 200, request.url)
    t.ok(lines.some((l) => l.includes('"msg":"<- GET /callback/[REDACTED]')), 'the JWT path segment is masked, the path kept')
    if (options.includeQuery === true) {
      t.ok(lines.some((l) => l.includes('<- GET /login?pw=[REDACTED]&pass=[REDACTED]&bearer=[REDACTED]&page=2 from')), 'the harmless parameter is kept')
      t.ok(lines.some((l) => l.includes('"x-session-id":"[REDACTED]"')), 'the session header is listed, masked')
    }
    const all = lines.join('\n')
    for (const secret of secrets) t.notOk(all.includes(secret), `${secret} is not logged`)
  })
}
