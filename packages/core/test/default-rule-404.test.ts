import { test } from 'tap'
import Fastify from 'fastify'
import { middlewareChain, setDefaultAuthRule } from '@fastify-gatehouse/core'
import { fakeAuthComponents } from './helpers/fake-auth.js'

// Issue 25, review of item 13: setDefaultAuthRule left the scope's own 404
// handler open, where a peer's scope-wide onRequest hook (jwtVerify,
// @fastify/bearer-auth) refuses it. D-RULES-14.
async function build () {
  const app = Fastify()
  // An auth stand-in at order 400: `x-user: name:tag1,tag2` becomes the caller.
  await middlewareChain(app, {}, { components: fakeAuthComponents() })
  app.setNotFoundHandler(async (_request, reply) => reply.code(404).send({ outside: 'no such page' }))
  await app.register(async function api (scope) {
    setDefaultAuthRule(scope, 'member')
    scope.setNotFoundHandler(async (request, reply) => reply.code(404).send({ api: 'nothing here', caller: request.scope.auth?.identity ?? null }))
    scope.get('/things', async () => ({ things: [] }))
  }, { prefix: '/api' })
  await app.ready()
  return app
}

test("the scope's own 404 handler answers only callers the default rule admits", async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  const anonymous = await app.inject({ url: '/api/nothing-here' })
  t.equal(anonymous.statusCode, 403, 'anonymous: refused, not the handler')
  t.equal(anonymous.json().code, 'GATEHOUSE_CORE_FORBIDDEN')
  t.notMatch(anonymous.body, 'nothing here', "the scope handler's body is not sent")
  const stranger = await app.inject({ url: '/api/nothing-here', headers: { 'x-user': 'eve:guest' } })
  t.equal(stranger.statusCode, 403, 'a caller the rule refuses: 403')
  t.equal(stranger.json().code, 'GATEHOUSE_CORE_FORBIDDEN')
  const member = await app.inject({ url: '/api/nothing-here', headers: { 'x-user': 'ann:member' } })
  t.equal(member.statusCode, 404, "a member: the scope's 404")
  t.same(member.json(), { api: 'nothing here', caller: 'ann' }, 'the handler ran after auth: it sees the caller')
  t.equal((await app.inject({ method: 'POST', url: '/api/things', headers: { 'x-user': 'ann:member' } })).statusCode, 404, 'a method the route lacks: the same 404')
  t.equal((await app.inject({ method: 'POST', url: '/api/things' })).statusCode, 403, 'and refused to anonymous')
  t.equal((await app.inject({ url: '/api/things' })).statusCode, 403, 'the routes as before')
  t.equal((await app.inject({ url: '/api/things', headers: { 'x-user': 'ann:member' } })).statusCode, 200)
})

test('a 404 outside the scope is not touched by its default rule', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  for (const url of ['/nothing-here', '/apis/nothing', '/ap']) {
    const res = await app.inject({ url })
    t.equal(res.statusCode, 404, `${url}: 404 to anonymous`)
    t.same(res.json(), { outside: 'no such page' }, "the app's handler")
  }
})
