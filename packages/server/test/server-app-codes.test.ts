import { test } from 'tap'
import Fastify from 'fastify'
import { middlewareChain } from '@fastify-gatehouse/core'
import { MemoryApiKeyStore, MemoryUserStore } from '@fastify-gatehouse/auth'
import { allComponents, AppServer, PasswordMethod, serverApp } from '@fastify-gatehouse/server'

const FAST = { N: 1024, r: 8, p: 1 }

test('the _server app lists URLs under the prefix it is mounted at (there was a separate, unused mountPath)', async (t) => {
  const users = new MemoryUserStore({ scrypt: FAST })
  const app = Fastify()
  t.teardown(() => app.close())
  await middlewareChain(app, { middleware: { session: true } }, { components: allComponents })
  await app.register(serverApp, { prefix: '/account', methods: [new PasswordMethod({ users })] })
  t.same((await app.inject('/account/login_methods')).json(), { methods: [{ id: 'password', kind: 'form', label: 'Password', action: '/account/login' }] })
  const page = (await app.inject('/account/login_page')).body
  t.match(page, '<form id="password-form" method="post" action="/account/login"')
  t.match(page, '<link rel="stylesheet" href="/account/login.css">')
  t.match(page, '<script src="/account/login.js" defer></script>')
  t.equal((await app.inject('/account/login.js')).statusCode, 200)
})

test('every refusal of the _server app carries a code', async (t) => {
  const users = new MemoryUserStore({ scrypt: FAST })
  const tokens = new MemoryApiKeyStore()
  const server = new AppServer({
    users,
    tokens,
    adminPassword: 'gatekeeper-pass',
    // Never contacted: the 404 below is for a method that does not exist.
    externalUrl: 'https://app.example',
    serverApp: { oidc: { known: { issuer: 'https://idp.example', clientId: 'c', clientSecret: 's' } } }
  })
  t.teardown(() => server.close())
  const signIn = await server.inject({ method: 'POST', url: '/_server/login', payload: { identity: 'admin', password: 'gatekeeper-pass' } })
  const cookie = String(signIn.headers['set-cookie']).split(';')[0]!
  const as = (method: 'GET' | 'PATCH' | 'DELETE' | 'POST', url: string, payload?: Record<string, unknown>) =>
    server.inject({ method, url, headers: { cookie }, ...(payload === undefined ? {} : { payload }) })

  const notFound = (message: string) => ({ statusCode: 404, code: 'GATEHOUSE_SERVER_NOT_FOUND', error: 'Not Found', message })
  t.same((await as('PATCH', '/_server/users/nobody', { enabled: false })).json(), notFound('No such user'))
  t.same((await as('DELETE', '/_server/users/nobody')).json(), notFound('No such user'))
  t.same((await as('POST', '/_server/tokens/0123456789abcdef/revoke')).json(), notFound('No such token'))
  t.same((await as('DELETE', '/_server/tokens/0123456789abcdef')).json(), notFound('No such token'))
  t.same((await server.inject('/_server/auth/oidc:nobody/start')).json(), notFound('No sign-in method oidc:nobody'))

  t.same((await as('PATCH', '/_server/users/admin', { enabled: 'no' })).json(),
    { statusCode: 400, code: 'FST_ERR_VALIDATION', error: 'Bad Request', message: 'body/enabled must be boolean' }, 'Fastify\'s own code for other schema errors')
  t.same((await server.inject({ method: 'POST', url: '/_server/login', payload: { identity: 'admin' } })).json(),
    { statusCode: 400, code: 'GATEHOUSE_SERVER_BAD_LOGIN_REQUEST', error: 'Bad Request', message: 'identity and password are required' })
})
