// The session component's types: `request.scope.session`,
// `app.sessionStore` and `app.sessionSettings` (declaration merges) and
// SessionOptions.
import Fastify from 'fastify'
import { expect, test } from 'tstyche'
import type { MaybePromise, RequestScope } from '@fastify-gatehouse/core'
import { MemorySessionStore, sessionPlugin, type MemorySessionStoreOptions, type Session, type SessionEntry, type SessionOptions, type SessionStore } from '@fastify-gatehouse/session'

const app = Fastify()

test('request.scope.session is an optional Session', () => {
  expect<RequestScope['session']>().type.toBe<Session | undefined>()
  app.get('/', async (request) => {
    expect(request.scope.session).type.toBe<Session | undefined>()
    const session = request.scope.session
    if (session !== undefined) {
      expect(session.identity).type.toBe<string | null>()
      expect(session.tags).type.toBe<readonly string[]>()
      expect(session.get('cart')).type.toBe<unknown>()
      expect(session.handle).type.toBe<string | null>()
      expect(session.signedInAt).type.toBe<number | null>()
    }
    return null
  })
})

test('app.sessionStore is the SessionStore', () => {
  expect(app.sessionStore).type.toBe<SessionStore>()
  expect<MemorySessionStore>().type.toBeAssignableTo<SessionStore>()
  expect(app.sessionStore.listFor('alice', 100)).type.toBe<MaybePromise<SessionEntry[]>>()
})

test('listFor is required: a store without it is not a SessionStore', () => {
  expect<Omit<SessionStore, 'listFor'>>().type.not.toBeAssignableTo<SessionStore>()
})

test('app.sessionSettings: the lifetimes in seconds, read-only', () => {
  expect(app.sessionSettings).type.toBe<Readonly<{ idleTtl: number, absoluteTtl: number, touchInterval: number }>>()
  expect(app.sessionSettings.idleTtl).type.toBe<number>()
})

test('MemorySessionStoreOptions: two budgets, every key optional', () => {
  expect<{}>().type.toBeAssignableTo<MemorySessionStoreOptions>()
  expect({ maxAnonymous: 1000, maxSignedIn: 50_000 }).type.toBeAssignableTo<MemorySessionStoreOptions>()
  expect({ maxAnonymous: '1000' }).type.not.toBeAssignableTo<MemorySessionStoreOptions>()
  expect(new MemorySessionStore().sizes).type.toBe<{ anonymous: number, signedIn: number }>()
  expect(new MemorySessionStore().sweep()).type.toBe<number>()
})

test('SessionOptions: every key optional; samesite is one of three words', () => {
  expect<{}>().type.toBeAssignableTo<SessionOptions>()
  expect({ cookieName: 'sid', secure: true, samesite: 'strict' as const, idleTtl: 600, absoluteTtl: 3600, touchInterval: 30 }).type.toBeAssignableTo<SessionOptions>()
  expect({ samesite: 'loose' as const }).type.not.toBeAssignableTo<SessionOptions>()
  expect({ idleTtl: '600' }).type.not.toBeAssignableTo<SessionOptions>()
  expect({ store: {} }).type.not.toBeAssignableTo<SessionOptions>()
})

test('app.register(sessionPlugin, …) checks the options', () => {
  app.register(sessionPlugin, { secure: true, store: new MemorySessionStore() })
  expect(app.register(sessionPlugin, { secure: 'yes' })).type.toRaiseError()
  expect(app.register(sessionPlugin, { cookie: 'sid' })).type.toRaiseError()
})
