// RFC 8615 well-known URIs, served from the `documents` option; RFC 9116
// security.txt and the W3C change-password URL as the usual examples.
import { test } from 'tap'
import Fastify from 'fastify'
import { Redirect } from '@fastify-gatehouse/core'
import { wellknownPlugin } from '@fastify-gatehouse/wellknown'
import { build, SECURITY_TXT } from './helpers/build.js'

test('a string is text/plain (security.txt, RFC 9116)', async (t) => {
  const { app } = await build({ documents: { 'security.txt': SECURITY_TXT } })
  t.teardown(() => app.close())
  const res = await app.inject('/.well-known/security.txt')
  t.equal(res.statusCode, 200)
  t.equal(res.headers['content-type'], 'text/plain; charset=utf-8')
  t.equal(res.body, SECURITY_TXT)
  const head = await app.inject({ method: 'HEAD', url: '/.well-known/security.txt' })
  t.equal(head.statusCode, 200)
  t.equal(head.body, '')
  t.equal(head.headers['content-length'], String(Buffer.byteLength(SECURITY_TXT)))
  t.equal((await app.inject('/.well-known/security.txt?lang=en')).statusCode, 200, 'a query string does not change the name')
  t.equal((await app.inject({ method: 'POST', url: '/.well-known/security.txt' })).statusCode, 404, 'documents are GET/HEAD only')
})

test('an object or array is JSON', async (t) => {
  const config = { issuer: 'https://id.example.com', scopes_supported: ['openid'] }
  const { app } = await build({ documents: { 'openid-configuration': config, 'apple-app-site-association': [{ appID: 'X.y' }] } })
  t.teardown(() => app.close())
  const res = await app.inject('/.well-known/openid-configuration')
  t.equal(res.headers['content-type'], 'application/json; charset=utf-8')
  t.same(res.json(), config)
  t.same((await app.inject('/.well-known/apple-app-site-association')).json(), [{ appID: 'X.y' }])
})

test('change-password: a Redirect value is its status and Location', async (t) => {
  const { app } = await build({ documents: { 'change-password': new Redirect('https://app.example.com/account/password') } })
  t.teardown(() => app.close())
  const res = await app.inject('/.well-known/change-password')
  t.equal(res.statusCode, 302)
  t.equal(res.headers.location, 'https://app.example.com/account/password')
  t.equal(res.body, '')
})

test('a function is called per request and may return any document value', async (t) => {
  let calls = 0
  const { app } = await build({
    documents: {
      counter: () => ({ calls: ++calls }),
      greeting: async (request) => `hello ${(request.query as { name?: string }).name ?? 'you'}`,
      'change-password': () => new Redirect('/account/password', 303),
      absent: () => undefined,
      custom: (_request, reply) => { reply.code(202).header('x-own', '1').send('sent myself'); return undefined },
      failing: () => { throw new Error('secret internals') }
    }
  })
  t.teardown(() => app.close())
  t.same((await app.inject('/.well-known/counter')).json(), { calls: 1 })
  t.same((await app.inject('/.well-known/counter')).json(), { calls: 2 })
  const greeting = await app.inject('/.well-known/greeting?name=ann')
  t.equal(greeting.headers['content-type'], 'text/plain; charset=utf-8')
  t.equal(greeting.body, 'hello ann')
  const moved = await app.inject('/.well-known/change-password')
  t.equal(moved.statusCode, 303)
  t.equal(moved.headers.location, '/account/password')
  const absent = await app.inject('/.well-known/absent')
  t.equal(absent.statusCode, 404)
  t.equal(absent.json().code, 'GATEHOUSE_WELLKNOWN_NOT_FOUND')
  const custom = await app.inject('/.well-known/custom')
  t.equal(custom.statusCode, 202)
  t.equal(custom.headers['x-own'], '1')
  t.equal(custom.body, 'sent myself')
  const failing = await app.inject('/.well-known/failing')
  t.equal(failing.statusCode, 500)
  t.notMatch(failing.body, /secret internals/, 'the errors component answers, without the message')
})

test('registered alone with app.register()', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(wellknownPlugin, { documents: { 'security.txt': 'Contact: https://example.com/security\nExpires: 2031-12-31T23:59:59Z\n' } })
  app.get('/.env', async () => 'SECRET=1')
  t.equal((await app.inject('/.well-known/security.txt')).statusCode, 200)
  const probe = await app.inject('/.env')
  t.equal(probe.statusCode, 404)
  t.notMatch(probe.body, /SECRET/)
})
