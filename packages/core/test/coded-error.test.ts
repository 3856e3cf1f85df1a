// createCodedError: a @fastify/error class whose errors carry headers and,
// for a 5xx written for the caller, `expose`. D-CODES-05, D-ERRORS-20.
import { test } from 'tap'
import createError from '@fastify/error'
import { createCodedError, HttpError, isAnsweredAsItIs, isCodedError, responseHeadersOf, withCause } from '@fastify-gatehouse/core'

const LOCKED = createCodedError<'TEST_LOCKED', [number]>('TEST_LOCKED', 'Locked; try again in %d s', 429, { headers: { 'X-Why': 'lockout' } })
const DOWN = createCodedError('TEST_DOWN', 'Down: try again shortly', 503, { expose: true, headers: { 'retry-after': '5' } })

test('an error of the class: its code, status, message, headers (the class\'s, then its own), cause and instanceof', async (t) => {
  const cause = new Error('the driver said no')
  const err = new LOCKED(30, { headers: { 'Retry-After': '30' }, cause })
  t.equal(err.code, 'TEST_LOCKED')
  t.equal(err.statusCode, 429)
  t.equal(err.message, 'Locked; try again in 30 s')
  t.same(err.headers, { 'x-why': 'lockout', 'retry-after': '30' }, 'names lower-cased; the class\'s first')
  t.ok(Object.isFrozen(err.headers))
  t.equal(err.cause, cause)
  t.equal(err.expose, false)
  t.ok(err instanceof LOCKED && err instanceof Error && isCodedError(err))
  t.notOk(err instanceof HttpError, 'not an HttpError: one mechanism')
  // @fastify/error matches on the code: a class made elsewhere (another copy) with it answers too.
  t.ok(err instanceof createError('TEST_LOCKED', 'x', 429))
  t.same(new DOWN().headers, { 'retry-after': '5' })
  t.equal(new DOWN().expose, true)
  t.match(new DOWN().stack, /\n\s+at /, 'a stack by default')
})

test('stack: false captures none: the stack is the name and the message (D-AUTH-56)', async (t) => {
  const Refused = createCodedError<'TEST_REFUSED', [string]>('TEST_REFUSED', '%s', 401, { stack: false })
  t.equal(new Refused('no').stack, 'FastifyError: no')
})

test('headers that cannot be sent are refused when the class or the error is made', async (t) => {
  t.throws(() => createCodedError('TEST_BAD', 'x', 400, { headers: { 'bad name': 'x' } }), { code: 'GATEHOUSE_CORE_INVALID_HTTP_ERROR' })
  t.throws(() => new LOCKED(1, { headers: { 'retry-after': '1\r\nset-cookie: a=b' } }), { code: 'GATEHOUSE_CORE_INVALID_HTTP_ERROR' })
})

test('responseHeadersOf: a coded error\'s sendable headers; none for an uncoded error', async (t) => {
  t.same(responseHeadersOf(new LOCKED(3, { headers: { 'retry-after': '3' } })), { 'x-why': 'lockout', 'retry-after': '3' })
  t.same(responseHeadersOf(new HttpError(401, 'x', { headers: { 'WWW-Authenticate': 'Bearer' } })), { 'www-authenticate': 'Bearer' })
  // An application's own createError class, with headers set by hand, as Fastify's handler takes them.
  const Mine = createError('APP_SLOW_DOWN', 'slow down', 429)
  const mine = Object.assign(new Mine(), { headers: { 'Retry-After': 7, 'bad name': 'x', 'x-split': 'a\nb', 'x-list': ['a', 'b'] } })
  t.same(responseHeadersOf(mine), { 'retry-after': '7', 'x-list': ['a', 'b'] }, 'numbers as text; bad names and values dropped')
  t.same(responseHeadersOf(Object.assign(new Error('upstream'), { statusCode: 502, headers: { 'set-cookie': 'a=b' } })), {}, 'an uncoded error forwards none')
  t.same(responseHeadersOf('a string'), {})
})

test('isAnsweredAsItIs: a coded 4xx, or a coded 5xx that sets expose', async (t) => {
  t.ok(isAnsweredAsItIs(new LOCKED(1)))
  t.ok(isAnsweredAsItIs(new DOWN()))
  t.ok(isAnsweredAsItIs(new HttpError(500, 'x')))
  t.notOk(isAnsweredAsItIs(new (createError('TEST_BOOT', 'x', 500, TypeError))()), 'a boot error is a fault of ours')
  t.notOk(isAnsweredAsItIs(Object.assign(new Error('x'), { statusCode: 400 })), 'an uncoded error is not')
})

test('withCause: the same class, code, status and headers; the cause replaced, the message kept or replaced', async (t) => {
  const err = new DOWN({ cause: new Error('password=hunter2') })
  const copy = withCause(err, new Error('UserStore.verify threw FastifyError 503 TEST_DOWN'))
  t.ok(copy instanceof DOWN)
  t.equal(copy.code, 'TEST_DOWN')
  t.equal(copy.statusCode, 503)
  t.same(copy.headers, { 'retry-after': '5' })
  t.equal(copy.expose, true)
  t.equal(copy.message, 'Down: try again shortly')
  t.equal((copy.cause as Error).message, 'UserStore.verify threw FastifyError 503 TEST_DOWN')
  t.notMatch(String(copy.stack), 'hunter2')
  t.equal(withCause(err, new Error('c'), 'Service Unavailable').message, 'Service Unavailable')
})
