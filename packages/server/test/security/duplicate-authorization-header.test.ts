// Issue 13, item 11: two Authorization headers through AppServer. With
// auth on they are a 400 (the first used to win silently, a last-wins proxy
// would have seen the other). With auth off Gatehouse reads no credential
// from Authorization: the session component treats any Authorization header,
// one or several, as "not a session request", so the caller stays
// anonymous and a duplicate authorises nobody (D-AUTH-19 in
// docs/decisions.md).
import { test } from 'tap'
import { rawRequest } from '../../../auth/test/helpers/raw-request.js'
import type { FastifyRequest } from 'fastify'
import { AppServer, RoutedApplication, route } from '@fastify-gatehouse/server'

class Shop extends RoutedApplication {
  @route('/orders', { authRule: 'ops' })
  async orders (request: FastifyRequest) { return { for: request.scope.auth?.identity } }
}

const raw = (port: number, lines: readonly string[]) => rawRequest(port, 'GET /orders HTTP/1.1', lines)

async function listen (server: AppServer): Promise<number> {
  const url = await server.serve('127.0.0.1', 0)
  return Number(new URL(url).port)
}

test('auth on: duplicates are a 400 over a real socket, in parallel with single-header requests', async (t) => {
  const server = new AppServer({ logger: false, primary: new Shop(), auth: { bearer: { ops: { token: 'ops-token', tags: 'ops' }, guest: { token: 'guest-token' } } } })
  t.teardown(() => server.close())
  const port = await listen(server)
  const requests = Array.from({ length: 40 }, (_, i) => i % 2 === 0
    ? raw(port, ['authorization: Bearer guest-token', 'Authorization: Bearer ops-token'])
    : raw(port, ['Authorization: Bearer ops-token']))
  const answers = await Promise.all(requests)
  for (const [i, res] of answers.entries()) {
    if (i % 2 === 0) {
      t.equal(res.status, 400, `duplicate ${i}`)
      t.equal(JSON.parse(res.body).code, 'GATEHOUSE_AUTH_DUPLICATE_AUTHORIZATION')
    } else {
      t.same({ status: res.status, body: JSON.parse(res.body) }, { status: 200, body: { for: 'ops' } }, `single ${i}`)
    }
  }
})

test('auth off, session on: a session with Authorization headers (one or two) is anonymous, never the session user', async (t) => {
  const server = new AppServer({ logger: false, primary: new Shop(), users: { alice: { password: 'alice-password', tags: 'ops' } }, login: true })
  t.teardown(() => server.close())
  const port = await listen(server)
  const login = await fetch(`http://127.0.0.1:${port}/_server/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ identity: 'alice', password: 'alice-password' }) })
  t.equal(login.status, 200)
  const cookie = login.headers.get('set-cookie')!.split(';')[0]!
  t.same(await raw(port, [`Cookie: ${cookie}`]), { status: 200, body: '{"for":"alice"}' }, 'the session alone')
  t.equal((await raw(port, [`Cookie: ${cookie}`, 'Authorization: Bearer x'])).status, 403, 'one Authorization header: not a session request')
  t.equal((await raw(port, [`Cookie: ${cookie}`, 'Authorization: Bearer x', 'Authorization: Bearer y'])).status, 403, 'two: the same')
})
