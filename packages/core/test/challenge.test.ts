import { test } from 'tap'
import { formatChallenge, quoteString } from '@fastify-gatehouse/core'

test('rfc9110 challenge formatting', async (t) => {
  t.equal(formatChallenge('Basic', { realm: 'api' }), 'Basic realm="api"')
  t.equal(formatChallenge('Bearer', { realm: 'a', error: 'invalid_token', error_description: undefined }), 'Bearer realm="a", error="invalid_token"')
  t.equal(formatChallenge('Negotiate'), 'Negotiate')
  t.equal(quoteString('say "hi" \\o/'), '"say \\"hi\\" \\\\o/"')
  t.throws(() => quoteString('a\r\nb'), { code: 'GATEHOUSE_CORE_INVALID_CHALLENGE' })
  t.throws(() => formatChallenge('Bad Scheme'), { code: 'GATEHOUSE_CORE_INVALID_CHALLENGE' })
  t.throws(() => formatChallenge('Basic', { 're alm': 'x' }), { code: 'GATEHOUSE_CORE_INVALID_CHALLENGE' })
})
