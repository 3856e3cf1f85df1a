// Session handles: the name a session's owner and administrators see and
// revoke it by. Stable for the session's life, 22 base64url characters,
// never the id or the store key, and neither can be worked back from it.
// Session.handle and Session.signedInAt as a request sees them. D-SESSION-20.
import { test } from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import { middlewareChain, sha256 } from '@fastify-gatehouse/core'
import { isSessionHandle, isSessionId, newSessionId, sessionHandle, sessionKey, type Session } from '@fastify-gatehouse/session'
import { components, sessionCookie } from './helpers/build.js'

test('sessionHandle: stable, 22 characters, a labelled digest of the key that names neither the key nor the id', async (t) => {
  const id = newSessionId()
  const key = sessionKey(id)
  const handle = sessionHandle(key)
  t.match(handle, /^[A-Za-z0-9_-]{22}$/)
  t.equal(sessionHandle(key), handle, 'the same key, the same handle: stable for the session\'s life')
  t.ok(isSessionHandle(handle))
  t.notOk(isSessionId(handle), 'a handle is never taken for a session id')
  for (const secret of [id, key]) {
    t.notOk(secret.includes(handle), 'not a part of the id or the key')
    t.not(handle, sha256(secret).slice(0, 22), 'not the plain digest of the id or the key: a label of its own')
  }
  t.not(sessionHandle(id), handle, 'made from the key, not the id')
  const handles = new Set(Array.from({ length: 2000 }, () => sessionHandle(sessionKey(newSessionId()))))
  t.equal(handles.size, 2000, 'distinct for distinct sessions')
  t.ok([...handles].every(isSessionHandle))
})

test('isSessionHandle: 22 base64url characters, nothing else', async (t) => {
  const handle = sessionHandle(sessionKey(newSessionId()))
  for (const bad of [handle.slice(1), `${handle}A`, `${handle.slice(1)}=`, `${handle.slice(1)}+`, `${handle.slice(1)}/`, ` ${handle.slice(1)}`, `${handle.slice(1)}\n`, newSessionId(), sessionKey(newSessionId()), '', null, undefined, 42, [handle], { handle }]) {
    t.notOk(isSessionHandle(bad), JSON.stringify(bad) ?? String(bad))
  }
})

async function app (): Promise<FastifyInstance> {
  const app = Fastify()
  await middlewareChain(app, { middleware: { session: {} } }, { components })
  const view = (session: Session | undefined): unknown => ({ handle: session!.handle, signedInAt: session!.signedInAt, identity: session!.identity })
  app.post<{ Body: { identity: string } }>('/login', async (req) => { req.scope.session!.login(req.body.identity); return view(req.scope.session) })
  app.post('/logout', async (req) => { req.scope.session!.logout(); return view(req.scope.session) })
  app.post('/put', async (req) => { req.scope.session!.set('k', 1); return view(req.scope.session) })
  app.post('/regenerate', async (req) => { req.scope.session!.regenerate(); return view(req.scope.session) })
  app.get('/me', async (req) => view(req.scope.session))
  await app.ready()
  return app
}

const handleOf = (id: string): string => sessionHandle(sessionKey(id))

test('Session.handle and Session.signedInAt: null when anonymous; after a login, the new id\'s handle and the login time; after a logout, null', async (t) => {
  const server = await app()
  t.teardown(() => server.close())

  t.same((await server.inject({ url: '/me' })).json(), { handle: null, signedInAt: null, identity: null }, 'no session')

  const anonymous = await server.inject({ method: 'POST', url: '/put' })
  const anonymousId = sessionCookie(anonymous)!
  t.same(anonymous.json(), { handle: handleOf(anonymousId), signedInAt: null, identity: null }, 'an anonymous session has a handle, but no sign-in')
  t.same((await server.inject({ url: '/me', headers: { cookie: `session_id=${anonymousId}` } })).json(), { handle: handleOf(anonymousId), signedInAt: null, identity: null })

  const before = Date.now()
  const login = await server.inject({ method: 'POST', url: '/login', payload: { identity: 'alice' }, headers: { cookie: `session_id=${anonymousId}` } })
  const after = Date.now()
  const id = sessionCookie(login)!
  t.not(id, anonymousId)
  const signedIn = login.json() as { handle: string, signedInAt: number }
  t.equal(signedIn.handle, handleOf(id), 'the handle of the id the login issues, known in the same request')
  t.not(signedIn.handle, handleOf(anonymousId), 'not the handle of the session it left')
  t.ok(signedIn.signedInAt >= before && signedIn.signedInAt <= after, 'signed in during the login request')
  const stored = server.sessionStore.get(sessionKey(id)) as { createdAt: number }
  t.equal(signedIn.signedInAt, stored.createdAt, 'the session\'s start: a sign-in starts a new one')

  const later = await server.inject({ url: '/me', headers: { cookie: `session_id=${id}` } })
  t.same(later.json(), { handle: handleOf(id), signedInAt: signedIn.signedInAt, identity: 'alice' }, 'the same on every later request')

  const regenerated = await server.inject({ method: 'POST', url: '/regenerate', headers: { cookie: `session_id=${id}` } })
  const newId = sessionCookie(regenerated)!
  t.same(regenerated.json(), { handle: handleOf(newId), signedInAt: signedIn.signedInAt, identity: 'alice' }, 'a new id, a new handle; the sign-in time is kept')

  const logout = await server.inject({ method: 'POST', url: '/logout', headers: { cookie: `session_id=${newId}` } })
  t.same(logout.json(), { handle: null, signedInAt: null, identity: null }, 'after logout: nothing')
  t.same((await server.inject({ url: '/me', headers: { cookie: `session_id=${newId}` } })).json(), { handle: null, signedInAt: null, identity: null })
})
