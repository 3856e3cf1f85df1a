import { defineComponent, ORDER } from '@fastify-gatehouse/core'
import { sessionOptionsSchema, type SessionOptions } from './options.js'
import type { Session } from './session.js'
import { sessionHooks } from './plugin.js'
import type { SessionStore } from './session-store.js'

declare module '@fastify-gatehouse/core' {
  interface RequestScope {
    /** The request's session (lazy); undefined when the session component is off. */
    session?: Session
  }
  // The store role whose interface session declares (D-STORES-04).
  interface StoreRoles {
    sessions: SessionStore
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The store of the session component (e.g. to `destroyAllFor(identity)` when a user changes). */
    sessionStore: SessionStore
    /** The lifetimes of the session component, in seconds. */
    sessionSettings: Readonly<{ idleTtl: number, absoluteTtl: number, touchInterval: number }>
  }
}

/**
 * The session component (order 450, off by default): reads the session
 * cookie in `onRequest`, exposes the lazy session at
 * `request.scope.session`, fills `request.scope.auth` from a signed-in
 * session when no Authorization header is present, and saves changes and
 * sets the cookie in `onSend` — only when something was written.
 */
export const sessionPlugin = defineComponent<SessionOptions>({
  name: 'session',
  order: ORDER.session,
  schema: sessionOptionsSchema,
  plugin: sessionHooks
})

export default sessionPlugin
export { Session } from './session.js'
export type { SessionLoginOptions, SessionChange, SessionTimes, SessionWrite } from './session.js'
export { MemorySessionStore, memorySessionStoreDefaults } from './memory-session-store.js'
export type { MemorySessionStoreOptions } from './memory-session-store.js'
export type { SessionClient, SessionEntry, SessionRecord, SessionStore, SessionWriteCondition, SessionWriteResult } from './session-store.js'
export { MAX_SESSION_CLAIMS_BYTES } from './session-store.js'
export { MAX_AGENT_LABEL, userAgentLabel } from './user-agent-label.js'
export { lastSeenAt } from './last-seen.js'
export { recordFromStored, storedRecordJson } from './stored-record.js'
// Was declared here; now core's (the same type), kept for importers.
export type { MaybePromise } from '@fastify-gatehouse/core'
export { isSessionHandle, isSessionId, newSessionId, sessionHandle, sessionKey } from './session-id.js'
export { defaults as sessionDefaults, resolveSessionOptions, sessionOptionsSchema } from './options.js'
export type { CheckIdentity, ResolvedSessionOptions, SessionOptions } from './options.js'
export {
  CHECK_UNAVAILABLE,
  CONFLICT,
  GATEHOUSE_SESSION_CHECK_UNAVAILABLE,
  GATEHOUSE_SESSION_CONFLICT,
  GATEHOUSE_SESSION_INVALID_CHECK_ANSWER,
  GATEHOUSE_SESSION_INVALID_LOGIN,
  GATEHOUSE_SESSION_INVALID_OPTIONS,
  GATEHOUSE_SESSION_STORE_UNAVAILABLE,
  STORE_UNAVAILABLE
} from './errors.js'
