import { test } from 'tap'
import { errorForLog, redactHeaders, redactQuery, redactText } from '@gatehouse/core'

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

test('errorForLog masks secrets in message and stack, keeps code and status', async (t) => {
  const err = Object.assign(new Error('bad key gak_0123456789abcdef_secretpart'), { code: 'E_X', statusCode: 502 })
  const safe = errorForLog(err)
  t.equal(safe.type, 'Error')
  t.equal(safe.message, 'bad key gak_0123456789abcdef_[REDACTED]')
  t.match(safe.stack, /^Error: bad key gak_0123456789abcdef_\[REDACTED\]\n/)
  t.equal(safe.code, 'E_X')
  t.equal(safe.statusCode, 502)
  t.same(errorForLog('Bearer abc'), { type: 'string', message: 'Bearer [REDACTED]' })
  t.same(errorForLog(null), { type: 'object', message: 'null' })
})
