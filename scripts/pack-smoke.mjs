// The smoke test check-pack.mjs copies into a scratch app that installed the
// packed tarballs (npm or pnpm), and runs there with plain node: what a user's
// app gets from an install. It imports the umbrella and scoped packages,
// serves on 127.0.0.1:0 and asserts real answers. Exit 0, or the failed
// assertion on stderr and exit 1. D-TOOLING-25.
import assert from 'node:assert/strict'
import Fastify from 'fastify'
import { AppServer, HttpError, errorsPlugin as umbrellaErrorsPlugin, middlewareChain } from 'fastify-gatehouse'
import { RedisSessionStore } from 'fastify-gatehouse/redis'
import { hashPassword } from '@fastify-gatehouse/auth'
import { errorsPlugin } from '@fastify-gatehouse/errors'

const PASSWORD = 'pack-smoke-passphrase-8841'
const basic = (user, password) => ({ authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` })

// A subpath export loads (ioredis with it; nothing connects), and the app and
// the umbrella share one copy of each scoped package.
assert.equal(typeof RedisSessionStore, 'function')
assert.equal(typeof errorsPlugin, 'function')
assert.equal(umbrellaErrorsPlugin, errorsPlugin)

// 1. The umbrella's chain on an app of one's own: Basic with a hash made by the scoped auth package.
const app = Fastify()
await middlewareChain(app, {
  authMiddleware: { basic: { alice: { passwordHash: await hashPassword(PASSWORD), tags: 'ops' } } }
})
app.get('/orders', { authRule: 'ops' }, async (request) => ({ by: request.scope.auth.identity }))
app.get('/missing', async () => { throw new HttpError(404, 'No such order') })
const base = await app.listen({ host: '127.0.0.1', port: 0 })
try {
  const ok = await fetch(`${base}/orders`, { headers: basic('alice', PASSWORD) })
  assert.equal(ok.status, 200)
  assert.deepEqual(await ok.json(), { by: 'alice' })

  const wrong = await fetch(`${base}/orders`, { headers: basic('alice', 'not-the-passphrase') })
  assert.equal(wrong.status, 401)
  assert.match(wrong.headers.get('www-authenticate') ?? '', /^Basic /)
  await wrong.body?.cancel()

  const missing = await fetch(`${base}/missing`, { headers: { accept: 'application/json' } })
  assert.equal(missing.status, 404)
  assert.equal((await missing.json()).message, 'No such order')
} finally {
  await app.close()
}

// 2. AppServer: sign in on /_server/login, then the session cookie opens a route.
const server = new AppServer({ users: { bob: { password: PASSWORD, tags: 'ops' } }, logger: false, login: true })
server.register(async (routes) => {
  routes.get('/orders', { authRule: 'ops' }, async (request) => ({ by: request.scope.auth.identity }))
})
const url = await server.serve('127.0.0.1', 0)
try {
  const anonymous = await fetch(`${url}/orders`, { headers: { accept: 'application/json' } })
  assert.ok(anonymous.status === 401 || anonymous.status === 403, `anonymous /orders: ${anonymous.status}`)
  await anonymous.body?.cancel()

  const login = await fetch(`${url}/_server/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ identity: 'bob', password: PASSWORD })
  })
  assert.equal(login.status, 200)
  assert.deepEqual(await login.json(), { identity: 'bob', tags: ['ops'] })
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]
  assert.match(cookie, /^session_id=\S+$/)

  const orders = await fetch(`${url}/orders`, { headers: { cookie } })
  assert.equal(orders.status, 200)
  assert.deepEqual(await orders.json(), { by: 'bob' })
} finally {
  await server.close()
}
process.stdout.write('smoke: Basic through middlewareChain, login and a session through AppServer\n')
