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

// Issue 25 item 16, D-LOGGING-10: credentials are masked, the words of sentences are not.
test('redactText leaves ordinary sentences that name a scheme unchanged', async (t) => {
  const sentences = [
    'Sign in with Bearer credentials',
    'Sign in with Basic or Bearer credentials',
    'Sign in with Basic, Bearer or Token credentials.',
    'The Basic scheme is not accepted here. Sign in with Bearer credentials',
    'The scheme must be written exactly Bearer',
    'Malformed bearer request: the bearer token is not a b64token',
    'Basic credentials must be base64',
    'WWW-Authenticate: Basic realm="gatehouse", charset="UTF-8"',
    'Bearer realm="gatehouse", error="invalid_token", error_description="The token is not valid"',
    'Token expired at 12:00',
    'token refresh failed; bearer auth is disabled',
    'Negotiate is not supported',
    'use basic auth (Basic) or a token'
  ]
  for (const sentence of sentences) t.equal(redactText(sentence), sentence, sentence)
})

test('redactText still masks every credential form after a scheme', async (t) => {
  const basic = Buffer.from('bob:hunter2').toString('base64')
  const cases: Array<[string, string]> = [
    [`Authorization: Basic ${basic}`, 'Authorization: Basic [REDACTED]'],
    ['basic   dXNlcjpwYXNz', 'basic [REDACTED]'],
    ['header was Bearer abc.def.ghi, then', 'header was Bearer [REDACTED], then'],
    ['Bearer static-token-0123', 'Bearer [REDACTED]'],
    ['Bearer letmein', 'Bearer [REDACTED]'],
    ['Bearer s3cr3t.', 'Bearer [REDACTED]'],
    ['Token 9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b', 'Token [REDACTED]'],
    ['Negotiate YIIJvwYGKwYBBQUCoIIJszCCCa+gMDAu', 'Negotiate [REDACTED]'],
    ['Digest username="bob", response="6629fae49393a05397450978507c4ef1"', 'Digest [REDACTED], response="6629fae49393a05397450978507c4ef1"'],
    ['Basic or Bearer abc123', 'Basic or Bearer [REDACTED]'],
    ['Bearer Bearer abc123', 'Bearer Bearer [REDACTED]'],
    ['curl -H "Authorization: Bearer tok_live_42" https://x', 'curl -H "Authorization: Bearer [REDACTED] https://x'],
    ['Sign in with Bearer credentials, not Bearer hunter2', 'Sign in with Bearer credentials, not Bearer [REDACTED]']
  ]
  for (const [input, expected] of cases) {
    t.equal(redactText(input), expected, input)
    t.notMatch(redactText(input), /hunter2|letmein|s3cr3t|tok_live|9944b0|YIIJ|abc123|static-token|dXNlcjpw/)
  }
  t.equal(redactText(`Basic ${basic}`).includes(basic), false)
  t.equal(redactText(redactText('Bearer abc123')), 'Bearer [REDACTED]', 'idempotent')
})

// Issue 25 review, item 8 (D-AUTH-80): a one-word credential that is also a
// prose word (`access`, `ok`, `token`) was kept when it ended the header value.
test('redactText masks a prose word that ends the line after a scheme: it is a credential', async (t) => {
  const cases: Array<[string, string]> = [
    ['Authorization: Bearer access', 'Authorization: Bearer [REDACTED]'],
    ['Bearer access', 'Bearer [REDACTED]'],
    ['header Basic ok', 'header Basic [REDACTED]'],
    ['Basic ok', 'Basic [REDACTED]'],
    ['sent Bearer token', 'sent Bearer [REDACTED]'],
    ['authorization: Bearer token\nnext line', 'authorization: Bearer [REDACTED]\nnext line'],
    ['Bearer access\r\nHost: x', 'Bearer [REDACTED]\r\nHost: x'],
    ['a, Bearer refresh', 'a, Bearer [REDACTED]']
  ]
  for (const [input, expected] of cases) t.equal(redactText(input), expected, JSON.stringify(input))
  // Sentences are kept as before.
  for (const prose of ['Bearer token missing', 'Bearer token expired.', 'Bearer access is refused', 'Basic ok, go on', 'Sign in with Basic or Bearer credentials', 'the Bearer scheme']) {
    t.equal(redactText(prose), prose, prose)
  }
})
