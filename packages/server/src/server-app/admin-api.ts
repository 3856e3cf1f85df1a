import type { FastifyInstance, FastifyRequest } from 'fastify'
import { errorForLog, invalidTag, invalidTagMessage, parseTags, SUPERADMIN } from '@fastify-gatehouse/core'
import { API_KEY_ID_PATTERN, CALLBACK_TIMEOUT_SECONDS, callOut, passwordPolicyDefaults, passwordProblem, type ApiKeyStore, type ResolvedPasswordPolicy, type UserStore } from '@fastify-gatehouse/auth'
import { notFound, tagNotAllowed, weakPassword } from '../errors.js'

/** The tag of the bootstrapped administrator; only it may use the admin API (defined in @fastify-gatehouse/core, where auth reads it too). */
export { SUPERADMIN }

const tags = { anyOf: [{ type: 'string', maxLength: 1000 }, { type: 'array', items: { type: 'string', maxLength: 200 }, maxItems: 100 }] }
const identityParam = { type: 'object', required: ['identity'], properties: { identity: { type: 'string', minLength: 1, maxLength: 200 } } }
const keyIdParam = { type: 'object', required: ['keyId'], properties: { keyId: { type: 'string', pattern: API_KEY_ID_PATTERN } } }

// Checked here, whatever the store does: a tag no rule can name is refused, named (D-RULES-06).
function checkTags (tags: string | readonly string[] | undefined): void {
  const bad = tags === undefined ? undefined : invalidTag(parseTags(tags))
  if (bad !== undefined) throw tagNotAllowed(`tags: ${invalidTagMessage(bad)}`)
}

// A new password passes the policy before any store sees it (ASVS 6.2), so a
// refused request changes nothing (D-PASSWORD-08).
function checkNewPassword (password: string, identity: string, policy: ResolvedPasswordPolicy): void {
  const problem = passwordProblem(password, identity, policy)
  if (problem !== null) throw weakPassword(problem)
}

/**
 * SUPERADMIN-only JSON endpoints to manage users and API keys (what the
 * CLI does offline). Never returns a password hash; a key is shown once,
 * when issued.
 */
export function registerAdminApi (app: FastifyInstance, users: UserStore | undefined, tokens: ApiKeyStore | undefined, policy: ResolvedPasswordPolicy = passwordPolicyDefaults, callbackTimeout = CALLBACK_TIMEOUT_SECONDS): void {
  // D-SERVER-56: every call into the user store and the API-key store has
  // callbackTimeout seconds to answer (then 503 GATEHOUSE_AUTH_CALLBACK_TIMEOUT),
  // and what it throws is replaced by its safe facts: it may quote the
  // password it was given (D-AUTH-63). A coded error the errors component
  // answers as it is (a store's 409, 400 or 507, PostgreSQL's 503 with
  // Retry-After) passes through with its class, code, status, headers and
  // fixed sentence; only its cause is replaced (D-CODES-07).
  const ms = callbackTimeout * 1000
  const inUsers = async <T>(method: keyof UserStore, fn: (store: UserStore) => T | PromiseLike<T>): Promise<T> => await callOut(`UserStore.${method}`, ms, async () => await fn(users!))
  const inKeys = async <T>(method: keyof ApiKeyStore, fn: (store: ApiKeyStore) => T | PromiseLike<T>): Promise<T> => await callOut(`ApiKeyStore.${method}`, ms, async () => await fn(tokens!))
  // D-SERVER-03: an ordinary route rule; bodies validated by route schemas (400).
  const config = { authRule: SUPERADMIN }
  // Ends a changed user's sessions in the session store at once (on every
  // instance sharing it). Best effort: every session is also re-checked
  // against the user on its next request, so a failure here is only logged (D-SESSION-10).
  // API keys labelled with the identity are separate principals, left alone (D-AUTH-38).
  const endSessions = async (request: FastifyRequest, identity: string): Promise<void> => {
    if (!app.hasDecorator('sessionStore')) return
    try {
      await app.sessionStore.destroyAllFor(identity)
    } catch (err) {
      request.log.warn({ err: errorForLog(err) }, 'admin: could not end the sessions of a changed user now; they end on their next request')
    }
  }
  if (users !== undefined) {
    app.get('/users', { config }, async () => ({ users: await inUsers('list', async (s) => await s.list()) }))
    app.post<{ Body: { identity: string, password: string, tags?: string | string[] } }>('/users', {
      config,
      schema: { body: { type: 'object', required: ['identity', 'password'], additionalProperties: false, properties: { identity: { type: 'string' }, password: { type: 'string' }, tags } } }
    }, async (request, reply) => {
      const { identity, password, tags: userTags } = request.body
      checkTags(userTags)
      checkNewPassword(password, identity, policy)
      return reply.code(201).send({ user: await inUsers('add', async (s) => await s.add(identity, { password, tags: userTags ?? [] })) })
    })
    app.patch<{ Params: { identity: string }, Body: { password?: string, tags?: string | string[], enabled?: boolean } }>('/users/:identity', {
      config,
      schema: { params: identityParam, body: { type: 'object', minProperties: 1, additionalProperties: false, properties: { password: { type: 'string' }, tags, enabled: { type: 'boolean' } } } }
    }, async (request) => {
      const { identity } = request.params
      if (await inUsers('get', async (s) => await s.get(identity)) === null) throw notFound('No such user')
      const { password, tags: newTags, enabled } = request.body
      checkTags(newTags)
      if (password !== undefined) checkNewPassword(password, identity, policy)
      if (password !== undefined) await inUsers('setPassword', async (s) => await s.setPassword(identity, password))
      if (newTags !== undefined) await inUsers('setTags', async (s) => await s.setTags(identity, newTags))
      if (enabled !== undefined) await inUsers('setEnabled', async (s) => await s.setEnabled(identity, enabled))
      // New tags apply from the next request (the session check); a new
      // password or a disabled user ends the sessions.
      if (password !== undefined || enabled === false) await endSessions(request, identity)
      return { user: await inUsers('get', async (s) => await s.get(identity)) }
    })
    app.delete<{ Params: { identity: string } }>('/users/:identity', { config, schema: { params: identityParam } }, async (request) => {
      if (!await inUsers('delete', async (s) => await s.delete(request.params.identity))) throw notFound('No such user')
      await endSessions(request, request.params.identity)
      return { status: 'ok' }
    })
  }
  if (tokens !== undefined) {
    app.get('/tokens', { config }, async () => ({ tokens: await inKeys('list', async (s) => await s.list()) }))
    app.post<{ Body: { label: string, tags?: string | string[], expiresAt?: string } }>('/tokens', {
      config,
      schema: { body: { type: 'object', required: ['label'], additionalProperties: false, properties: { label: { type: 'string' }, tags, expiresAt: { type: 'string', format: 'date-time' } } } }
    }, async (request, reply) => {
      const { label, tags: keyTags, expiresAt } = request.body
      checkTags(keyTags)
      const { key, record } = await inKeys('issue', async (s) => await s.issue({ label, tags: keyTags ?? [], expiresAt: expiresAt === undefined ? null : new Date(expiresAt) }))
      return reply.code(201).header('cache-control', 'no-store').send({ key, token: record })
    })
    app.post<{ Params: { keyId: string } }>('/tokens/:keyId/revoke', { config, schema: { params: keyIdParam } }, async (request) => {
      if (!await inKeys('revoke', async (s) => await s.revoke(request.params.keyId))) throw notFound('No such token')
      return { status: 'ok' }
    })
    app.delete<{ Params: { keyId: string } }>('/tokens/:keyId', { config, schema: { params: keyIdParam } }, async (request) => {
      if (!await inKeys('delete', async (s) => await s.delete(request.params.keyId))) throw notFound('No such token')
      return { status: 'ok' }
    })
  }
}
