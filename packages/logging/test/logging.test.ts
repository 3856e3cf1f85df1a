import { test } from 'tap'
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify'
import pino from 'pino'
import { HttpError, middlewareChain } from '@fastify-gatehouse/core'
import { errorsPlugin } from '@fastify-gatehouse/errors'
import { loggingPlugin, type LoggingOptions } from '@fastify-gatehouse/logging'

interface Line { level: number, msg: string, name?: string, reqId?: string, statusCode?: number, headers?: Record<string, unknown> }

const API_KEY = 'gak_0123456789abcdef_S3cr3tKeyMaterial'
const PASSWORD_B64 = Buffer.from('alice:Pa55word!').toString('base64')
const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl'
const SECRETS = ['S3cr3tKeyMaterial', PASSWORD_B64, JWT, 'sess10nValue', 'newSess10nValue', 'qs-T0ken', 'oidc-c0de']

async function build (options: LoggingOptions | true = true, loggerLevel = 'info', routes: (app: FastifyInstance) => void = () => {}) {
  const lines: Line[] = []
  const app = Fastify({
    loggerInstance: pino({ level: loggerLevel }, { write: (l: string) => { lines.push(JSON.parse(l) as Line) } }) as FastifyBaseLogger,
    // The access lines replace Fastify's own request lines (which log the full URL): the documented setup.
    logController: new LogController({ disableRequestLogging: true })
  })
  await middlewareChain(app, { middleware: { logging: options as Record<string, unknown> | true } }, { components: [errorsPlugin, loggingPlugin] })
  app.get('/p', async () => 'ok')
  app.get('/boom', async () => { throw new Error(`kaboom with ${API_KEY} and Bearer ${JWT}`) })
  app.get('/denied', async () => { throw new HttpError(403, 'nope') })
  app.get('/cookie', async (_req, reply) => reply.header('set-cookie', 'session_id=newSess10nValue; Path=/; HttpOnly').send('ok'))
  routes(app)
  await app.ready()
  const access = () => lines.filter((l) => l.name === (options === true ? 'service.access' : options.loggerName ?? 'service.access'))
  return { app, lines, access }
}

test('the two line shapes, on Fastify\'s logger as service.access', async (t) => {
  const { app, access } = await build()
  t.teardown(() => app.close())
  const res = await app.inject({ url: '/p?x=1', remoteAddress: '1.2.3.4' })
  t.equal(res.statusCode, 200)
  const [inLine, outLine, ...rest] = access()
  t.same(rest, [])
  t.equal(inLine?.msg, '<- GET /p from 1.2.3.4')
  t.equal(inLine?.level, 30)
  t.match(inLine?.reqId, /^req-[0-9a-z]+$/, 'Fastify\'s request id')
  t.match(outLine?.msg, /^-> GET \/p 200 \(\d+\.\d+ms\)$/)
  t.equal(outLine?.statusCode, 200)
  t.equal(outLine?.reqId, inLine?.reqId, 'both lines carry the request id')
})

test('the ERROR line for a failed request, after the errors component decided the status', async (t) => {
  const { app, access, lines } = await build()
  t.teardown(() => app.close())
  const res = await app.inject('/boom')
  t.equal(res.statusCode, 500)
  const out = access().at(-1)
  t.equal(out?.level, 50)
  t.match(out?.msg, /^-> GET \/boom ERROR: kaboom with gak_0123456789abcdef_\[REDACTED\] and Bearer \[REDACTED\] \(\d+\.\d+ms\)$/)
  t.notMatch(JSON.stringify(lines.filter((l) => l.name === 'service.access')), /S3cr3t|eyJ/)
})

test('client errors and unmatched routes get the status line', async (t) => {
  const { app, access } = await build()
  t.teardown(() => app.close())
  await app.inject('/denied')
  t.match(access().at(-1)?.msg, /^-> GET \/denied 403 \(/)
  t.equal(access().at(-1)?.level, 30)
  await app.inject('/missing')
  t.match(access().at(-1)?.msg, /^-> GET \/missing 404 \(/)
})

test('level and loggerName', async (t) => {
  const { app, access } = await build({ level: 'debug', loggerName: 'edge.access' }, 'debug')
  t.teardown(() => app.close())
  await app.inject('/p')
  t.same(access().map((l) => [l.name, l.level]), [['edge.access', 20], ['edge.access', 20]])

  const quiet = await build({ level: 'debug' }, 'info')
  t.teardown(() => quiet.app.close())
  await quiet.app.inject('/p')
  t.same(quiet.access(), [], 'below the logger level nothing is written')
  await quiet.app.inject('/boom')
  t.equal(quiet.access().length, 1, 'ERROR lines are written at error level regardless')
})

test('includeQuery: off by default, then shown with secrets redacted', async (t) => {
  const url = `/p?page=2&access_token=qs-T0ken&code=oidc-c0de&q=${API_KEY}&flag`
  const off = await build()
  t.teardown(() => off.app.close())
  await off.app.inject(url)
  t.equal(off.access()[0]?.msg, '<- GET /p from 127.0.0.1')

  const on = await build({ includeQuery: true })
  t.teardown(() => on.app.close())
  await on.app.inject(url)
  const expected = '/p?page=2&access_token=[REDACTED]&code=[REDACTED]&q=gak_0123456789abcdef_[REDACTED]&flag'
  t.equal(on.access()[0]?.msg, `<- GET ${expected} from 127.0.0.1`)
  t.match(on.access()[1]?.msg, `-> GET ${expected} 200`)
})

test('includeHeaders: only at debug, always redacted', async (t) => {
  const headers = {
    authorization: `Basic ${PASSWORD_B64}`,
    cookie: 'session_id=sess10nValue; theme=dark',
    'x-api-key': API_KEY,
    'x-forwarded-note': `key ${API_KEY}`,
    'user-agent': 'tap'
  }
  const info = await build({ includeHeaders: true }, 'info')
  t.teardown(() => info.app.close())
  await info.app.inject({ url: '/cookie', headers })
  t.notOk(info.access().some((l) => l.headers !== undefined), 'no header lines when debug is off')

  const debug = await build({ includeHeaders: true }, 'debug')
  t.teardown(() => debug.app.close())
  await debug.app.inject({ url: '/cookie', headers })
  const [reqHeaders, resHeaders] = debug.access().filter((l) => l.headers !== undefined)
  t.equal(reqHeaders?.level, 20)
  t.equal(reqHeaders?.msg, '<- GET /cookie headers')
  t.match(reqHeaders?.headers, {
    authorization: 'Basic [REDACTED]',
    cookie: 'session_id=[REDACTED]; theme=[REDACTED]',
    'x-api-key': '[REDACTED]',
    'x-forwarded-note': 'key gak_0123456789abcdef_[REDACTED]',
    'user-agent': 'tap'
  })
  t.equal(resHeaders?.msg, '-> GET /cookie headers')
  t.equal(resHeaders?.headers?.['set-cookie'], 'session_id=[REDACTED]; Path=/; HttpOnly')

  const off = await build({}, 'debug')
  t.teardown(() => off.app.close())
  await off.app.inject({ url: '/cookie', headers })
  t.notOk(off.access().some((l) => l.headers !== undefined), 'includeHeaders defaults to off')
})

test('no secret reaches any log line, whatever the options', async (t) => {
  const { app, lines } = await build({ includeHeaders: true, includeQuery: true }, 'trace')
  t.teardown(() => app.close())
  await app.inject({
    url: '/boom?token=qs-T0ken&code=oidc-c0de',
    headers: { authorization: `Bearer ${JWT}`, cookie: 'session_id=sess10nValue', 'x-api-key': API_KEY }
  })
  await app.inject({ url: '/cookie', headers: { authorization: `Basic ${PASSWORD_B64}` } })
  const all = JSON.stringify(lines)
  for (const secret of SECRETS) t.notOk(all.includes(secret), `${secret.slice(0, 6)}… is not logged`)
})

test('registered alone; with Fastify logging off it stays silent', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(loggingPlugin)
  await app.register(errorsPlugin)
  app.get('/', async () => 'ok')
  t.equal((await app.inject('/')).statusCode, 200)
})

test('bad options fail at boot', async (t) => {
  for (const [options, message] of [
    [{ level: 'loud' }, /^logging options\.level: /],
    [{ include_query: true }, /^logging options\.include_query: unknown option \(options are camelCase: includeQuery\)$/],
    [{ loggerName: '' }, /^logging options\.loggerName: expected string length greater or equal to 1/]
  ] as const) {
    const app = Fastify()
    await t.rejects(async () => { await app.register(loggingPlugin, options as never).ready() }, { code: 'GATEHOUSE_CORE_INVALID_OPTIONS', message })
    await app.close()
  }
})
