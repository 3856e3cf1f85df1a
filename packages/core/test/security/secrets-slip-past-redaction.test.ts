// Issue 13, item 13 (and the byte dump of item 5): secrets that slipped past
// the log redaction — query names `pw`, `pass`, `bearer`; a JWT in a path
// or nested in another parameter's value; header names containing
// `session`; raw request bytes on an error.
import { test } from 'tap'
import { errorForLog, redactHeaders, redactPath, redactQuery, redactText } from '@fastify-gatehouse/core'

const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJlU0VDUkVU'
const JWE = 'eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2R0NNIn0..aXZpdg.Y2lwaGVydGV4dA.dGFnU0VDUkVU'

test('short and spelled-out password, bearer and key names in the query are masked', async (t) => {
  const secret = ['pw', 'pass', 'PASS', 'pwd', 'passwd', 'passphrase', 'passcode', 'userPw', 'user_pass', 'bearer', 'bearer_token',
    'pin', 'otp', 'key', 'private_key', 'privateKey', 'apikey', 'X-Api-Key', 'accessToken', 'refresh-token', 'sessionid',
    'PHPSESSID', 'jsessionid', 'sig', 'hmac', 'auth', 'authkey', 'credentials', 'SAMLResponse', 'RelayState', 'ticket',
    'code', 'state', 'nonce', 'code_verifier', 'client_secret', 'id_token_hint']
  for (const name of secret) {
    t.equal(redactQuery(`/p?${name}=S3CRET&x=1`), `/p?${name}=[REDACTED]&x=1`, name)
  }
  const harmless = ['bypass', 'passenger', 'compass', 'page', 'sort', 'q', 'author', 'keyboard', 'design', 'x']
  for (const name of harmless) t.equal(redactQuery(`/p?${name}=visible`), `/p?${name}=visible`, `${name} is kept`)
})

test('a JWT anywhere in a path is masked', async (t) => {
  t.equal(redactPath(`/callback/${JWT}`), '/callback/[REDACTED]')
  t.equal(redactPath(`/a/${JWT}/b`), '/a/[REDACTED]/b')
  t.equal(redactPath(`/jwe/${JWE}`), '/jwe/[REDACTED]', 'a JWE too (five segments, one empty)')
  t.equal(redactPath(`/enc/${JWT.replace(/\./g, '%2E')}`), '/enc/[REDACTED]', 'percent-encoded dots')
  t.equal(redactQuery(`/callback/${JWT}?x=1`), '/callback/[REDACTED]?x=1')
  t.equal(redactPath('/plain/eyJ-not-a-token'), '/plain/eyJ-not-a-token', 'an eyJ word without dots is kept')
})

test('a JWT or a secret parameter nested inside another parameter is masked', async (t) => {
  t.equal(redactQuery(`/login?next=/cb?token=${JWT}`), '/login?next=/cb?token=[REDACTED]')
  t.equal(redactQuery(`/login?next=/cb?foo=${JWT}&x=1`), '/login?next=/cb?foo=[REDACTED]&x=1', 'a JWT under a harmless name')
  t.equal(redactQuery(`/login?next=${encodeURIComponent(`/cb?foo=${JWT}`)}`), '/login?next=%2Fcb%3Ffoo%3D[REDACTED]', 'encoded')
  t.equal(redactQuery(`/login?next=${encodeURIComponent('/cb?password=hunter2&x=1')}`), '/login?next=[REDACTED]')
  t.equal(redactQuery('/login?next=https://app.example/cb?code=abc'), '/login?next=https://app.example/cb?code=[REDACTED]')
  t.equal(redactQuery(`/p?v=${JWT}`), '/p?v=[REDACTED]', 'a bare JWT as a value')
  t.equal(redactQuery(`/p?${JWT}`), '/p?[REDACTED]', 'a bare JWT as a key')
  t.notMatch(redactQuery('/a?n=/b?n=/c?n=/d?n=/e?n=/f?pw=DEEPSECRET'), /DEEPSECRET/, 'deep nesting is masked')
  t.equal(redactQuery('/login?next=/orders?page=2'), '/login?next=/orders?page=2', 'a harmless nested query is kept')
})

test('bare JWT shapes are masked in free text, and gak_ keys keep only their id', async (t) => {
  t.equal(redactText(`upstream said ${JWT} was bad`), 'upstream said [REDACTED] was bad')
  t.equal(redactText(`token=${JWT}`), 'token=[REDACTED]')
  t.equal(redactText('key gak_0123456789abcdef_S3CRET-part used'), 'key gak_0123456789abcdef_[REDACTED] used')
})

test('headers whose names contain session, or carry a JWT, are masked', async (t) => {
  t.same(redactHeaders({
    'x-session-id': 'S3CRET1',
    session: 'S3CRET2',
    'x-session': 'S3CRET3',
    'x-amz-security-token': 'S3CRET4',
    'x-jwt-assertion': 'S3CRET5',
    'x-forwarded-user-info': JWT,
    'x-request-id': 'req-1',
    'x-status-code': '200'
  }), {
    'x-session-id': '[REDACTED]',
    session: '[REDACTED]',
    'x-session': '[REDACTED]',
    'x-amz-security-token': '[REDACTED]',
    'x-jwt-assertion': '[REDACTED]',
    'x-forwarded-user-info': '[REDACTED]',
    'x-request-id': 'req-1',
    'x-status-code': '200'
  })
  t.same(redactHeaders({ referer: `https://app.example/cb/${JWT}?next=/x?token=S3CRET` }), { referer: 'https://app.example/cb/[REDACTED]?next=/x?token=[REDACTED]' })
})

test('an error carrying the raw request bytes logs only their size', async (t) => {
  const raw = Buffer.from('GET / HTTP/1.1\r\nAuthorization: Basic U0VDUkVU\r\nCookie: session_id=S3CRET\r\n\r\n')
  const err = Object.assign(new Error('Parse Error: Invalid header value char'), { code: 'HPE_INVALID_HEADER_TOKEN', rawPacket: raw, nested: { bytes: new Uint8Array(raw) } })
  const safe = errorForLog(err) as unknown as Record<string, unknown>
  t.equal(safe.rawPacket, `[${raw.byteLength} bytes]`)
  t.same(safe.nested, { bytes: `[${raw.byteLength} bytes]` })
  t.equal(safe.code, 'HPE_INVALID_HEADER_TOKEN', 'the code stays')
  t.notMatch(JSON.stringify(safe), /S3CRET|U0VDUkVU|71,69,84/)
})

test('secret-named fields of logged errors follow the same rule as headers', async (t) => {
  const err = Object.assign(new Error('x'), { sessionId: 'S1', pass: 'S2', apiKey: 'S3', statusCode: 500, state: 'kept' })
  t.same({ ...errorForLog(err) }, { sessionId: '[REDACTED]', pass: '[REDACTED]', apiKey: '[REDACTED]', statusCode: 500, state: 'kept' })
})
