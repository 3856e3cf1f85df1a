import { test } from 'tap'
import { HttpError } from '@fastify-gatehouse/core'
import { callOut, failedCall, safeFacts } from '@fastify-gatehouse/auth'

// What a call out reports of what it threw: only facts with the shape of a
// class name, a status or a code; never a value that could hold the credential (D-AUTH-63).
test('safeFacts names the class, status and code, and its causes; nothing else, whatever was thrown', async (t) => {
  const secret = 'Sup3r"secret/p@ss'
  t.equal(safeFacts(Object.assign(new Error(secret), { code: 'ECONNRESET', parameters: [secret] })), 'Error ECONNRESET')
  t.equal(safeFacts(new HttpError(503, secret, { code: 'APP_DOWN', cause: new TypeError(secret) })), 'HttpError 503 APP_DOWN, caused by TypeError')
  t.equal(safeFacts(Object.assign(new Error('x'), { code: secret, statusCode: 'nope' })), 'Error', 'a code that is not code-shaped is left out')
  t.equal(safeFacts(secret), 'a string', 'a thrown string is never quoted')
  t.equal(safeFacts({ password: secret }), 'Object')
  t.equal(safeFacts(null), 'null')
  const hostile = new Proxy(new Error('x'), { get () { throw new Error(secret) }, getPrototypeOf () { throw new Error(secret) } })
  t.doesNotThrow(() => safeFacts(hostile), 'a proxy whose every read throws')
  t.notMatch(safeFacts(hostile), secret)
  class Weird extends Error {}
  Object.defineProperty(Weird, 'name', { value: `bad ${secret}` })
  t.equal(safeFacts(new Weird('x')), 'an object', 'a class name that is not an identifier is left out')
  const deep = new Error('a', { cause: new Error('b', { cause: new Error('c', { cause: new Error('d') }) }) })
  t.equal(safeFacts(deep), 'Error, caused by Error, caused by Error', 'three levels at most')
})

test('failedCall and callOut: a fresh error; synchronous answers stay synchronous', async (t) => {
  const fresh = failedCall('UserStore.verify', Object.assign(new Error('no'), { statusCode: 503 }))
  t.match(fresh, { code: 'GATEHOUSE_AUTH_CALLBACK_FAILED', statusCode: 503, message: 'UserStore.verify threw Error 503' })
  t.equal((fresh as Error).cause, undefined, 'no cause: nothing of the thrown value but its facts')
  const coded = failedCall('UserStore.verify', new HttpError(503, 'Redis unavailable: try again shortly', { code: 'GATEHOUSE_REDIS_UNAVAILABLE', headers: { 'retry-after': '5' }, cause: new Error('pw') }))
  t.match(coded, { statusCode: 503, code: 'GATEHOUSE_REDIS_UNAVAILABLE', message: 'Redis unavailable: try again shortly', headers: { 'retry-after': '5' } })
  t.equal(((coded as Error).cause as Error).message, 'UserStore.verify threw HttpError 503 GATEHOUSE_REDIS_UNAVAILABLE, caused by Error')
  t.match(failedCall('UserStore.verify', new HttpError(503, 'down for pw', { code: 'APP_DOWN' })), { message: 'Service Unavailable', code: 'APP_DOWN' }, 'a store\'s own message is not kept')
  t.equal(callOut('f', 10, () => 42), 42)
  t.throws(() => callOut('f', 10, () => { throw new Error('x') }), { code: 'GATEHOUSE_AUTH_CALLBACK_FAILED', message: 'f threw Error' })
  await t.rejects(callOut('f', 10, async () => await new Promise(() => {})) as Promise<unknown>, { statusCode: 503, code: 'GATEHOUSE_AUTH_CALLBACK_TIMEOUT' })
})
