// Issue 13, item 14: the JSON login answer carried `session_id`, so page
// JavaScript (the login page's own fetch, or a script injected into it)
// could read the id the HttpOnly cookie hides. It is now sent only to an API
// client that asks (`return_session_id: true`), and every response that sets
// or clears the session cookie, or names the id, has Cache-Control: no-store.
import { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { AppServer } from '@fastify-gatehouse/server'

async function build () {
  const server = new AppServer({ logger: false, users: { alice: { password: 'alice-Pa55word', tags: 'member' } }, login: true })
  server.register(async (app: FastifyInstance) => {
    // A route of the app that writes the session and asks to be cached.
    app.get('/remember', async (request, reply) => {
      request.scope.session!.set('theme', 'dark')
      return reply.header('cache-control', 'public, max-age=600').send({ ok: true })
    })
  })
  await server.ready()
  return server
}

test('the login answer holds no session id unless an API client asks for it', async (t) => {
  const server = await build()
  t.teardown(() => server.close())
  const page = await server.inject({ method: 'POST', url: '/_server/login', headers: { accept: 'application/json' }, payload: { identity: 'alice', password: 'alice-Pa55word' } })
  t.equal(page.statusCode, 200)
  t.same(page.json(), { identity: 'alice', tags: ['member'] }, 'what the login page\'s fetch gets')
  t.equal(page.headers['cache-control'], 'no-store')
  t.match(page.headers['set-cookie'], /HttpOnly/)

  const api = await server.inject({ method: 'POST', url: '/_server/login', payload: { identity: 'alice', password: 'alice-Pa55word', return_session_id: true } })
  t.equal(api.statusCode, 200)
  t.match(api.json(), { identity: 'alice', session_id: /^[A-Za-z0-9_-]{43}$/ })
  t.equal(api.headers['cache-control'], 'no-store')

  const bad = await server.inject({ method: 'POST', url: '/_server/login', payload: { identity: 'alice', password: 'alice-Pa55word', return_session_id: 'yes' } })
  t.same(Object.keys(bad.json()), ['identity', 'tags'], 'only the literal true asks')

  const script = await server.inject('/_server/login.js')
  t.equal(script.statusCode, 200)
  t.notMatch(script.body, /return_session_id/, 'the login page\'s script never asks')
})

test('every response that sets or clears the session cookie is no-store', async (t) => {
  const server = await build()
  t.teardown(() => server.close())
  const form = await server.inject({
    method: 'POST',
    url: '/_server/login',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
    payload: 'identity=alice&password=alice-Pa55word&next=%2F'
  })
  t.equal(form.statusCode, 303, 'a browser form sign-in')
  t.equal(form.headers['cache-control'], 'no-store')
  const cookie = String(form.headers['set-cookie']).split(';')[0]!

  const written = await server.inject({ url: '/remember', headers: { cookie } })
  t.equal(written.statusCode, 200)
  t.equal(written.headers['cache-control'], 'public, max-age=600', 'a write to an existing session sets no cookie: the app\'s own caching stands')
  const fresh = await server.inject('/remember')
  t.match(fresh.headers['set-cookie'], /^session_id=/, 'a first write creates the session')
  t.equal(fresh.headers['cache-control'], 'no-store', 'and its answer is never cached, whatever the route asked')

  const out = await server.inject({ method: 'POST', url: '/_server/logout', headers: { cookie } })
  t.equal(out.statusCode, 200)
  t.match(out.headers['set-cookie'], /^session_id=; Max-Age=0/)
  t.equal(out.headers['cache-control'], 'no-store')
})
