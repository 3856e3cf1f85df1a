import { test } from 'tap'
import pino from 'pino'
import { errorForLog, redactHeaders, redactQuery, redactText } from '@fastify-gatehouse/core'

test('redactText masks API keys and credentials', async (t) => {
  t.equal(redactText('key gak_0123456789abcdef_abc-DEF_123 used'), 'key gak_0123456789abcdef_[REDACTED] used')
  t.equal(redactText('header was Bearer abc.def.ghi, then'), 'header was Bearer [REDACTED], then')
  t.equal(redactText('basic   dXNlcjpwYXNz'), 'basic [REDACTED]')
  t.equal(redactText('nothing here'), 'nothing here')
})

test('redactHeaders', async (t) => {
  t.same(redactHeaders({
    Authorization: 'Bearer x.y.z',
    'proxy-authorization': 'opaque',
    cookie: 'a=1;b=2',
    'set-cookie': ['sid=abc; HttpOnly', 'flag'],
    'x-auth-token': 'tok',
    accept: 'text/html',
    'content-length': 12,
    missing: undefined
  }), {
    authorization: 'Bearer [REDACTED]',
    'proxy-authorization': '[REDACTED]',
    cookie: 'a=[REDACTED];b=[REDACTED]',
    'set-cookie': ['sid=[REDACTED]; HttpOnly', '[REDACTED]'],
    'x-auth-token': '[REDACTED]',
    accept: 'text/html',
    'content-length': '12'
  })
})

test('redactQuery', async (t) => {
  t.equal(redactQuery('/a'), '/a')
  t.equal(redactQuery('/a?x=1&password=p&client_secret=s&id_token=t&state=st&API_KEY=k&%E0=1&sid=9'),
    '/a?x=1&password=[REDACTED]&client_secret=[REDACTED]&id_token=[REDACTED]&state=[REDACTED]&API_KEY=[REDACTED]&%E0=1&sid=[REDACTED]')
  t.equal(redactQuery('/a?gak_0123456789abcdef_zzz'), '/a?gak_0123456789abcdef_[REDACTED]')
  t.equal(redactQuery('/a?session%5Fid=v'), '/a?session%5Fid=[REDACTED]', 'encoded keys are recognised')
})

test('errorForLog masks secrets in message, stack and fields, and keeps the class', async (t) => {
  const err = Object.assign(new TypeError('bad key gak_0123456789abcdef_secretpart'), { code: 'E_X', statusCode: 502, detail: 'Bearer abc.def' })
  const safe = errorForLog(err)
  t.ok(safe instanceof TypeError)
  t.equal(safe.message, 'bad key gak_0123456789abcdef_[REDACTED]')
  t.match(safe.stack, /^TypeError: bad key gak_0123456789abcdef_\[REDACTED\]\n/)
  t.same({ ...safe }, { code: 'E_X', statusCode: 502, detail: 'Bearer [REDACTED]' })
  t.equal(err.message, 'bad key gak_0123456789abcdef_secretpart', 'the original is untouched')
  t.equal(errorForLog('Bearer abc').message, 'Bearer [REDACTED]')
  t.equal(errorForLog(null).message, 'null')
})

test('pino serialises the copy with its class and no secret', async (t) => {
  const lines: string[] = []
  const log = pino({}, { write: (l: string) => { lines.push(l) } })
  log.error({ err: errorForLog(new RangeError('used gak_0123456789abcdef_zzz')) }, 'x')
  const line = JSON.parse(lines[0] ?? '{}') as { err: { type: string, message: string, stack: string } }
  t.equal(line.err.type, 'RangeError')
  t.equal(line.err.message, 'used gak_0123456789abcdef_[REDACTED]')
  t.notMatch(lines[0], /zzz/)
})
