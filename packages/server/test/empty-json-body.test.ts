import { test, type Test } from 'tap'
import { connect } from 'node:net'
import { MemoryUserStore } from '@fastify-gatehouse/auth'
import { AppServer } from '@fastify-gatehouse/server'

// docs/server.md: "Routes that take no body (logout, revoke, delete) accept
// none or an empty one". A client that always sends `content-type:
// application/json` (fetch wrappers, curl -H) and no body is sending none.
// D-SERVER-53.

const JSON_TYPE = { 'content-type': 'application/json' }

async function start (t: Test) {
  const users = new MemoryUserStore({ scrypt: { N: 1024, r: 8, p: 1 } })
  await users.add('alice', { password: 'alice-pass', tags: [] })
  const server = new AppServer({ logger: false, users, login: true })
  t.teardown(() => server.close())
  await server.ready()
  return server
}

const cookieOf = (header: unknown): string => String(header).split(';')[0]!

test('over inject: an empty JSON body is no body', async (t) => {
  const server = await start(t)
  const app = server.fastify
  const signIn = async (): Promise<string> => {
    const res = await app.inject({ method: 'POST', url: '/_server/login', payload: { identity: 'alice', password: 'alice-pass' } })
    t.equal(res.statusCode, 200)
    return cookieOf(res.headers['set-cookie'])
  }
  const me = async (cookie: string) => (await app.inject({ url: '/_server/account/me', headers: { cookie } })).statusCode

  for (const url of ['/_server/logout', '/_server/account/logout']) {
    const cookie = await signIn()
    const res = await app.inject({ method: 'POST', url, headers: { ...JSON_TYPE, cookie } })
    t.equal(res.statusCode, 200, `${url}: no body with content-type JSON`)
    t.same(res.json(), { status: 'ok' })
    t.match(String(res.headers['set-cookie']), /^session_id=; .*Max-Age=0/, `${url}: the cookie is cleared`)
    t.equal(await me(cookie), 401, `${url}: signed out`)
  }

  // A session's own revoke and delete take none either.
  const cookie = await signIn()
  const other = await signIn()
  const { sessions } = (await app.inject({ url: '/_server/account/sessions', headers: { cookie } })).json() as { sessions: Array<{ handle: string, current: boolean }> }
  const theirs = sessions.find((item) => !item.current)!.handle
  const deleted = await app.inject({ method: 'DELETE', url: `/_server/account/sessions/${theirs}`, headers: { ...JSON_TYPE, cookie } })
  t.equal(deleted.statusCode, 200, 'DELETE a session: no body with content-type JSON')
  t.same(deleted.json(), { status: 'ok' })
  t.equal(await me(other), 401, 'that session ended')
  const others = await app.inject({ method: 'POST', url: '/_server/account/sessions/revoke-others', headers: { ...JSON_TYPE, cookie } })
  t.equal(others.statusCode, 200, 'revoke-others: no body with content-type JSON')

  // What is not "no body" keeps its answer.
  const unknown = await app.inject({ method: 'POST', url: '/_server/logout', headers: { ...JSON_TYPE, cookie }, payload: '{"all":true}' })
  t.equal(unknown.statusCode, 400)
  t.equal(unknown.json().code, 'GATEHOUSE_SERVER_UNKNOWN_FIELD')
  const broken = await app.inject({ method: 'POST', url: '/_server/logout', headers: { ...JSON_TYPE, cookie }, payload: '{' })
  t.equal(broken.statusCode, 400)
  t.equal(broken.json().code, 'FST_ERR_CTP_INVALID_JSON_BODY')
  const spaces = await app.inject({ method: 'POST', url: '/_server/logout', headers: { ...JSON_TYPE, cookie }, payload: '  ' })
  t.equal(spaces.statusCode, 400, 'white space is a body, and not JSON')
  t.equal(spaces.json().code, 'FST_ERR_CTP_INVALID_JSON_BODY')
  const poisoned = await app.inject({ method: 'POST', url: '/_server/logout', headers: { ...JSON_TYPE, cookie }, payload: '{"__proto__":{"x":1}}' })
  t.equal(poisoned.statusCode, 400, 'prototype poisoning is still refused (Fastify\'s own parser)')
  t.equal(poisoned.json().code, 'FST_ERR_CTP_INVALID_JSON_BODY')
  t.equal(await me(cookie), 200, 'none of those signed out')

  // A route that needs a body gets its own 400 for none, never a 500.
  const login = await app.inject({ method: 'POST', url: '/_server/login', headers: JSON_TYPE })
  t.equal(login.statusCode, 400)
  t.equal(login.json().code, 'GATEHOUSE_SERVER_BAD_LOGIN_REQUEST')
  const password = await app.inject({ method: 'POST', url: '/_server/account/password', headers: { ...JSON_TYPE, cookie } })
  t.equal(password.statusCode, 400)
  t.equal(password.json().code, 'GATEHOUSE_SERVER_BAD_PASSWORD_CHANGE')
})

test('over a real socket: fetch, and http with no Content-Length and with an empty chunked body', async (t) => {
  const server = await start(t)
  const base = await server.serve('127.0.0.1', 0)
  const signIn = async (): Promise<string> => {
    const res = await fetch(`${base}/_server/login`, { method: 'POST', headers: JSON_TYPE, body: JSON.stringify({ identity: 'alice', password: 'alice-pass' }) })
    t.equal(res.status, 200)
    return cookieOf(res.headers.get('set-cookie'))
  }
  const me = async (cookie: string) => (await fetch(`${base}/_server/account/me`, { headers: { cookie } })).status

  const cookie = await signIn()
  const res = await fetch(`${base}/_server/logout`, { method: 'POST', headers: { ...JSON_TYPE, cookie } })
  t.equal(res.status, 200, 'fetch with content-type JSON and no body (Content-Length: 0)')
  t.same(await res.json(), { status: 'ok' })
  t.equal(await me(cookie), 401)

  // curl -X POST -H 'content-type: application/json' sends no Content-Length at all: raw bytes, so nothing adds one.
  const { port } = new URL(base)
  for (const framing of ['none', 'chunked'] as const) {
    const session = await signIn()
    const head = `POST /_server/account/logout HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nCookie: ${session}\r\nConnection: close\r\n`
    const raw = framing === 'none' ? `${head}\r\n` : `${head}Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n`
    const answer = await new Promise<{ status: number, body: string }>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => socket.end(raw))
      let text = ''
      socket.setEncoding('utf8')
      socket.on('data', (chunk: string) => { text += chunk })
      socket.on('error', reject)
      socket.on('close', () => resolve({ status: Number(text.slice(9, 12)), body: text.slice(text.indexOf('\r\n\r\n') + 4) }))
    })
    t.equal(answer.status, 200, `framing ${framing}`)
    t.same(JSON.parse(answer.body), { status: 'ok' })
    t.equal(await me(session), 401, `framing ${framing}: signed out`)
  }
})
