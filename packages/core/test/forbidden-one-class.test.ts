// Issue 26 ("two error mechanisms"): GATEHOUSE_CORE_FORBIDDEN arrived as an
// HttpError for an anonymous caller and as a FastifyError for a caller
// with the wrong tag, so `instanceof` missed one of them. It is one
// createError class now, whoever is refused (D-CORE-15).
import { test } from 'tap'
import Fastify from 'fastify'
import { Avatar, declareRouteChallenges, defineComponent, GATEHOUSE_CORE_FORBIDDEN, HttpError, middlewareChain } from '@fastify-gatehouse/core'

function auth (declares: boolean) {
  return defineComponent({
    name: 'fake-auth',
    order: 400,
    default: true,
    plugin: async (app) => {
      if (declares) declareRouteChallenges(app, { schemes: ['Basic', 'Bearer'], challenges: ['Basic realm="x"', 'Bearer realm="x"'], challengeAnonymous: false })
      app.addHook('onRequest', async (req) => { if (req.headers['x-user'] !== undefined) req.scope.auth = new Avatar('bob', { tags: 'ops', backend: 'test' }) })
    }
  })
}

test('anonymous or with the wrong tag, with or without an auth component that declares its schemes: one class, one code, 403', async (t) => {
  for (const declares of [false, true]) {
    const app = Fastify()
    t.teardown(() => app.close())
    const caught: unknown[] = []
    app.setErrorHandler((error, _request, reply) => { caught.push(error); return reply.code(403).send({ code: (error as { code?: string }).code, message: (error as Error).message }) })
    await middlewareChain(app, {}, { components: [auth(declares)] })
    app.get('/admin', { authRule: 'admin' }, async () => 'secret')
    const anonymous = await app.inject('/admin')
    const wrongTag = await app.inject({ url: '/admin', headers: { 'x-user': 'bob' } })
    t.same(anonymous.json(), { code: 'GATEHOUSE_CORE_FORBIDDEN', message: declares ? 'Sign in with Basic or Bearer credentials' : 'Insufficient permissions for this route' })
    t.same(wrongTag.json(), { code: 'GATEHOUSE_CORE_FORBIDDEN', message: 'Insufficient permissions for this route' })
    t.equal(caught.length, 2)
    for (const error of caught) {
      t.ok(error instanceof GATEHOUSE_CORE_FORBIDDEN, `${declares ? 'declared schemes' : 'no auth schemes'}: instanceof GATEHOUSE_CORE_FORBIDDEN`)
      t.notOk(error instanceof HttpError, 'not a second class')
      t.equal((error as { statusCode?: number }).statusCode, 403)
    }
  }
})
