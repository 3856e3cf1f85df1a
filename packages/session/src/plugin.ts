import type { FastifyPluginAsync, FastifyRequest } from 'fastify'
import { fastifyCookie } from '@fastify/cookie'
import { Avatar, HookTimeout, isThenable, safeFacts } from '@fastify-gatehouse/core'
import { checkUnavailable, GATEHOUSE_SESSION_INVALID_CHECK_ANSWER, storeUnavailable } from './errors.js'
import { resolveSessionOptions, type SessionOptions } from './options.js'
import { Session, type SessionChange } from './session.js'
import { isSessionId, sessionKey } from './session-id.js'
import { limitedStore, withinLimit } from './store-call.js'
import { writeSession } from './write-session.js'
import { sessionClient } from './session-client.js'
import type { SessionClient, SessionRecord } from './session-store.js'

const sameTags = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((tag, i) => tag === b[i])

function isCheckAnswer (value: unknown): value is { tags: readonly string[] } {
  const tags = (value as { tags?: unknown } | null)?.tags
  return typeof value === 'object' && value !== null && Array.isArray(tags) && tags.every((tag) => typeof tag === 'string')
}

/**
 * The session component's plugin: resolves the options once, then loads
 * the session in `onRequest` and saves what changed in `onSend`.
 */
export const sessionHooks: FastifyPluginAsync<SessionOptions> = async function session (app, options) {
  const opts = resolveSessionOptions(options)
  const { store, checkIdentity: check } = opts
  // D-SESSION-33: every call into the store and checkIdentity has callbackTimeout seconds.
  const ms = opts.callbackTimeout * 1000
  const times = { idleTtl: opts.idleTtl * 1000, absoluteTtl: opts.absoluteTtl * 1000, touchInterval: opts.touchInterval * 1000 }
  // Cookies are parsed and written with @fastify/cookie: ours when the app
  // has none, or the app's own.
  if (!app.hasDecorator('serializeCookie')) await app.register(fastifyCookie)
  // Bounded like the component's own calls, for the account and admin endpoints (D-SESSION-33).
  if (!app.hasDecorator('sessionStore')) app.decorate('sessionStore', limitedStore(store, ms))
  // The lifetimes, for what describes sessions (an account page's "last seen").
  if (!app.hasDecorator('sessionSettings')) app.decorate('sessionSettings', Object.freeze({ idleTtl: opts.idleTtl, absoluteTtl: opts.absoluteTtl, touchInterval: opts.touchInterval }))
  const cookie = { httpOnly: true, secure: opts.secure, sameSite: opts.samesite, path: '/' } as const
  const cleared = app.serializeCookie(opts.cookieName, '', { ...cookie, maxAge: 0, expires: new Date(0) })
  // One Avatar per stored record (the memory store hands back the same
  // object) and tag set (a checkIdentity may change the tags). Signing in
  // starts a new record, so its createdAt is when the caller signed in
  // (D-SESSION-22), unless the sign-in said otherwise (an OIDC auth_time, D-OIDC-12).
  // The record's claims are copied and frozen here, once per record: a hit
  // allocates nothing (D-SESSION-26).
  const avatars = new WeakMap<SessionRecord, Avatar>()

  function avatarFor (record: SessionRecord, identity: string, tags: readonly string[]): Avatar {
    let avatar = avatars.get(record)
    if (avatar === undefined || !sameTags(avatar.tags, tags)) {
      // New tags for the same record keep its frozen claims (Avatar shares what it froze).
      const claims = avatar === undefined ? record.claims ?? null : avatar.claims
      avatars.set(record, avatar = new Avatar(identity, { tags, backend: 'session', authenticatedAt: record.authenticatedAt === undefined ? record.createdAt : record.authenticatedAt, claims }))
    }
    return avatar
  }

  /** Who is asking, for the session's owner's list; worked out only if the session is written. */
  function clientOf (request: FastifyRequest): () => SessionClient {
    return () => sessionClient(request.ip, request.headers['user-agent'])
  }

  /** Whether `record` is a live session: unexpired, and written by a store that versions it. */
  function live (record: SessionRecord | null, now: number): record is SessionRecord {
    return record !== null && record.expiresAt > now && now < record.createdAt + times.absoluteTtl &&
      typeof record.version === 'number' && record.version >= 1
  }

  // The key of a session id the cookie named that loaded no session: a
  // logout still destroys it, since it may be an id a concurrent
  // regenerate() just moved away from (D-SESSION-28).
  const presented = new WeakMap<Session, string>()

  function attach (request: FastifyRequest, id: string, key: string, record: SessionRecord | null, now: number, tags: readonly string[] | null | undefined): void {
    if (!live(record, now)) {
      if (record !== null) Promise.resolve().then(() => store.destroy(key)).catch(() => {})
      const anonymous = new Session(times, now, undefined, clientOf(request))
      if (record === null) presented.set(anonymous, key)
      request.scope.session = anonymous
      return
    }
    const current = new Session(times, now, { id, key, record, ...(tags == null ? {} : { tags }) }, clientOf(request))
    request.scope.session = current
    if (tags === null) {
      // checkIdentity said no: the session ends (destroyed, cookie cleared in onSend).
      current.logout()
      return
    }
    // A valid Authorization header wins; an invalid one never reaches here.
    if (record.identity !== null && request.headers.authorization === undefined && request.scope.auth === null) {
      request.scope.auth = avatarFor(record, record.identity, current.tags)
    }
  }

  /** Attaches the session, turning a throw (a record a store handed back malformed) into a 503; calls `done` once. */
  function settle (request: FastifyRequest, id: string, key: string, record: SessionRecord | null, now: number, tags: readonly string[] | null | undefined, done: (err?: Error) => void): void {
    try {
      attach(request, id, key, record, now, tags)
    } catch (err) {
      done(storeUnavailable(err))
      return
    }
    done()
  }

  /** Loads and (with checkIdentity) re-checks the session; calls `done` once. */
  function load (request: FastifyRequest, id: string, key: string, record: SessionRecord | null, now: number, done: (err?: Error) => void): void {
    if (check === undefined || !live(record, now) || record.identity === null) {
      settle(request, id, key, record, now, undefined, done)
      return
    }
    let verdict: ReturnType<typeof check>
    try {
      verdict = withinLimit('checkIdentity', ms, () => check(record.identity!, record))
    } catch (err) {
      done(checkUnavailable(err))
      return
    }
    // Only null (end it) or { tags: string[] } are answers: anything else
    // fails closed, never falls back to the tags the session was signed in with.
    const apply = (answer: unknown): void => {
      if (answer === null) {
        settle(request, id, key, record, now, null, done)
      } else if (isCheckAnswer(answer)) {
        settle(request, id, key, record, now, answer.tags, done)
      } else {
        done(checkUnavailable(new GATEHOUSE_SESSION_INVALID_CHECK_ANSWER()))
      }
    }
    if (isThenable(verdict)) Promise.resolve(verdict).then(apply, (err: unknown) => done(checkUnavailable(err)))
    else apply(verdict)
  }

  app.addHook('onRequest', function loadSession (request, _reply, done) {
    const now = Date.now()
    const header = request.headers.cookie
    // request.cookies is parsed already unless the app set @fastify/cookie to a later hook.
    const id = header === undefined ? undefined : (request.cookies ?? app.parseCookie(header))[opts.cookieName]
    if (!isSessionId(id)) {
      // No cookie, or one that is not ours: nothing is looked up, nothing set.
      request.scope.session = new Session(times, now, undefined, clientOf(request))
      done()
      return
    }
    const key = sessionKey(id)
    let found: ReturnType<typeof store.get>
    try {
      found = withinLimit('SessionStore.get', ms, () => store.get(key))
    } catch (err) {
      done(storeUnavailable(err, 'SessionStore.get'))
      return
    }
    if (isThenable(found)) {
      Promise.resolve(found).then((record) => load(request, id, key, record, now, done), (err: unknown) => done(storeUnavailable(err, 'SessionStore.get')))
    } else {
      load(request, id, key, found, now, done)
    }
  })

  async function apply (change: SessionChange, current: Session, request: FastifyRequest, reply: { header: (k: string, v: string) => unknown }): Promise<void> {
    switch (change.kind) {
      case 'touch':
        // Best effort: a failed refresh must not fail a read-only request.
        try {
          await withinLimit('SessionStore.touch', ms, () => store.touch(change.key, change.expiresAt))
        } catch (err) {
          request.log.warn(`session: could not refresh the idle deadline: SessionStore.touch ${err instanceof HookTimeout ? err.message : `threw ${safeFacts(err)}`}`)
        }
        return
      case 'write': {
        const saved = await writeSession(store, current, change, ms)
        // Destroyed meanwhile (logout, a changed user, expiry, a sign-in in
        // another tab that replaced it): the write is dropped and the response
        // kept. No Set-Cookie: the dead id opens nothing, and clearing the
        // cookie could delete the newer one that sign-in just set.
        if (saved !== 'gone' && saved.newId) setCookie(reply, app.serializeCookie(opts.cookieName, saved.id, cookie))
        return
      }
      case 'destroy': {
        const key = change.key ?? presented.get(current) ?? null
        try {
          if (key !== null) await withinLimit('SessionStore.destroy', ms, () => store.destroy(key))
        } catch (err) {
          throw storeUnavailable(err, 'SessionStore.destroy')
        }
        setCookie(reply, cleared)
      }
    }
  }

  // A response that sets or clears the session cookie carries a session id
  // (or its end): no cache, shared or private, may keep it.
  function setCookie (reply: { header: (k: string, v: string) => unknown }, value: string): void {
    reply.header('set-cookie', value)
    reply.header('cache-control', 'no-store')
  }

  // Sessions whose change was carried out (or tried): an error response
  // from a failed save passes onSend again and must not save again.
  const settled = new WeakSet<Session>()

  app.addHook('onSend', function saveSession (request, reply, payload, done) {
    const current = request.scope?.session
    if (current === undefined || settled.has(current)) {
      done(null, payload)
      return
    }
    settled.add(current)
    const change = current.change()
    if (change.kind === 'none') {
      done(null, payload)
      return
    }
    apply(change, current, request, reply).then(() => done(null, payload), (err: Error) => done(err))
  })
}
