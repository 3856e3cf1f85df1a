import { test } from 'tap'
import { HttpError, Redirect } from '@fastify-gatehouse/core'

test('HttpError carries status, detail, headers and code', async (t) => {
  const err = new HttpError(429, 'Too many attempts', { headers: { 'Retry-After': '30' }, code: 'LOCKED' })
  t.ok(err instanceof Error)
  t.equal(err.statusCode, 429)
  t.equal(err.message, 'Too many attempts')
  t.same(err.headers, { 'retry-after': '30' }, 'header names are lower-cased')
  t.equal(err.code, 'LOCKED')
  t.equal(err.expose, true)
})

test('HttpError defaults the detail to the status text', async (t) => {
  t.equal(new HttpError(404).message, 'Not Found')
  t.equal(new HttpError(599).message, 'Error')
})

test('HttpError keeps the cause without exposing it', async (t) => {
  const cause = new Error('db down')
  const err = new HttpError(503, 'Try later', { cause })
  t.equal(err.cause, cause)
  t.equal(err.message, 'Try later')
})

test('HttpError refuses bad statuses and header values', async (t) => {
  for (const status of [200, 399, 600, 404.5, Number.NaN]) {
    t.throws(() => new HttpError(status), { code: 'GATEHOUSE_CORE_INVALID_HTTP_ERROR' }, `status ${status}`)
  }
  t.throws(() => new HttpError(401, 'x', { headers: { 'www-authenticate': 'Basic\r\nSet-Cookie: a=b' } }), { code: 'GATEHOUSE_CORE_INVALID_HTTP_ERROR' })
})

test('Redirect', async (t) => {
  const r = new Redirect('/login')
  t.equal(r.statusCode, 302)
  t.equal(r.location, '/login')
  t.equal(new Redirect('/x', 303).statusCode, 303)
  t.throws(() => new Redirect('/x', 200), { code: 'GATEHOUSE_CORE_INVALID_HTTP_ERROR' })
  t.throws(() => new Redirect(''), { code: 'GATEHOUSE_CORE_INVALID_HTTP_ERROR' })
  t.throws(() => new Redirect('/x\r\nSet-Cookie: a=b'), { code: 'GATEHOUSE_CORE_INVALID_HTTP_ERROR' })
})
