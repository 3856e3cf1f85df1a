// The session component keeps, with every session it writes, the client it
// was written from ({ address, agent }): what the session's owner sees in
// their list of sessions. And it tells the app its lifetimes
// (app.sessionSettings), so a "last seen" can be worked out. D-SESSION-21.
import { test } from 'tap'
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import { middlewareChain } from '@fastify-gatehouse/core'
import { sessionKey, type SessionOptions, type SessionRecord } from '@fastify-gatehouse/session'
import { components, sessionCookie } from './helpers/build.js'

const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0'
const SAFARI_IOS = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Mobile/15E148 Safari/604.1'

async function app (session: SessionOptions = {}, fastify: FastifyServerOptions = {}): Promise<FastifyInstance> {
  const app = Fastify(fastify)
  await middlewareChain(app, { middleware: { session: session as Record<string, unknown> } }, { components })
  app.post<{ Body: { identity: string } }>('/login', async (req) => { req.scope.session!.login(req.body.identity, 'member', { via: 'password' }); return { ok: true } })
  app.post('/put', async (req) => { req.scope.session!.set('k', Date.now()); return { ok: true } })
  app.get('/read', async (req) => ({ identity: req.scope.session!.identity }))
  await app.ready()
  return app
}

function stored (server: FastifyInstance, id: string): SessionRecord {
  const record = server.sessionStore.get(sessionKey(id)) as SessionRecord | null
  if (record === null) throw new Error('no session stored under that id')
  return record
}

test('a login and every later write keep the client they came from; a read keeps what was written', async (t) => {
  const server = await app()
  t.teardown(() => server.close())

  const login = await server.inject({ method: 'POST', url: '/login', payload: { identity: 'alice' }, headers: { 'user-agent': FIREFOX }, remoteAddress: '203.0.113.7' })
  t.equal(login.statusCode, 200)
  const id = sessionCookie(login)!
  t.same(stored(server, id).client, { address: '203.0.113.7', agent: 'Firefox 133 on Linux' }, 'the login\'s client')
  t.match(stored(server, id), { identity: 'alice', via: 'password' })

  const read = await server.inject({ url: '/read', headers: { cookie: `session_id=${id}`, 'user-agent': 'curl/8.5.0' }, remoteAddress: '198.51.100.1' })
  t.same(read.json(), { identity: 'alice' })
  t.same(stored(server, id).client, { address: '203.0.113.7', agent: 'Firefox 133 on Linux' }, 'a read-only request writes nothing, the client included')

  const write = await server.inject({ method: 'POST', url: '/put', headers: { cookie: `session_id=${id}`, 'user-agent': SAFARI_IOS }, remoteAddress: '2001:db8::5' })
  t.equal(write.statusCode, 200)
  t.same(stored(server, id).client, { address: '2001:db8::5', agent: 'Safari 17 on iOS' }, 'a write records the client that made it')

  // (inject sends a User-Agent of its own when none is given.)
  const bare = await server.inject({ method: 'POST', url: '/put', headers: { cookie: `session_id=${id}`, 'user-agent': '  ' }, remoteAddress: '192.0.2.44' })
  t.equal(bare.statusCode, 200)
  t.same(stored(server, id).client, { address: '192.0.2.44', agent: 'unknown' }, 'a blank User-Agent: unknown')
})

test('an anonymous session keeps its client too', async (t) => {
  const server = await app()
  t.teardown(() => server.close())
  const put = await server.inject({ method: 'POST', url: '/put', headers: { 'user-agent': 'curl/8.5.0' }, remoteAddress: '198.51.100.9' })
  t.same(stored(server, sessionCookie(put)!).client, { address: '198.51.100.9', agent: 'curl 8' })
})

test('behind a trusted proxy the address is the client\'s to choose: kept printable and bounded', async (t) => {
  const server = await app({}, { trustProxy: true })
  t.teardown(() => server.close())
  const cases: Array<[string, string]> = [
    ['203.0.113.50', '203.0.113.50'],
    ['2001:db8::1, 10.0.0.1', '2001:db8::1'],
    [`${'9'.repeat(5000)}, 10.0.0.1`, '9'.repeat(64)],
    ['<b>not\u00a0an\u00ffaddress</b>, 10.0.0.1', '<b>notanaddress</b>']
  ]
  for (const [forwarded, address] of cases) {
    const login = await server.inject({ method: 'POST', url: '/login', payload: { identity: 'alice' }, headers: { 'x-forwarded-for': forwarded, 'user-agent': FIREFOX }, remoteAddress: '10.0.0.1' })
    t.equal(login.statusCode, 200)
    t.same(stored(server, sessionCookie(login)!).client, { address, agent: 'Firefox 133 on Linux' }, JSON.stringify(forwarded.slice(0, 40)))
  }
})

test('app.sessionSettings: the lifetimes in seconds, as resolved, frozen', async (t) => {
  const defaults = await app()
  t.teardown(() => defaults.close())
  t.same(defaults.sessionSettings, { idleTtl: 3600, absoluteTtl: 86400, touchInterval: 60 })
  t.ok(Object.isFrozen(defaults.sessionSettings))
  const custom = await app({ idleTtl: 600, absoluteTtl: 7200, touchInterval: 30 })
  t.teardown(() => custom.close())
  t.same(custom.sessionSettings, { idleTtl: 600, absoluteTtl: 7200, touchInterval: 30 })
})
