import { test } from 'tap'
import Fastify from 'fastify'
import { middlewareChain } from '@fastify-gatehouse/core'
import { errorsPlugin } from '@fastify-gatehouse/errors'
import { authPlugin } from '@fastify-gatehouse/auth'
import { PostgresUserStore } from '../src/index.js'
import { FAST_SCRYPT, ownDatabase } from './helpers/identity.js'
import { needPostgres } from './helpers/postgres.js'
import { waitUntil } from '../../../test-helpers/wait.js'

const options = await needPostgres()
const basic = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`

// The auth component's `basic: { users }` on the PostgreSQL store: a change
// made by another instance (another store on the same schema, as the CLI or
// a second server would) reaches a cached credential through standing.
test('basic: { users: PostgresUserStore }: a cached credential follows changes made elsewhere', options, async (t) => {
  const { url, closeLater } = await ownDatabase(t)
  const schema = 'basic_auth'
  const served = closeLater(await PostgresUserStore.connect({ url, schema, migrate: true, scrypt: FAST_SCRYPT }))
  const elsewhere = closeLater(await PostgresUserStore.connect({ url, schema, scrypt: FAST_SCRYPT }))
  await elsewhere.add('alice', { password: 'wonderland-1', tags: 'admin' })

  const app = Fastify()
  t.teardown(() => app.close())
  await middlewareChain(app, { authMiddleware: { basic: { users: served } } }, { components: [errorsPlugin, authPlugin] })
  app.get('/me', { authRule: 'admin|reader' }, async (req) => req.scope.auth)
  await app.ready()
  const me = async (password = 'wonderland-1'): Promise<{ status: number, body: any }> => {
    const res = await app.inject({ url: '/me', headers: { authorization: basic('alice', password) } })
    return { status: res.statusCode, body: res.json() }
  }
  t.same((await me()).body, { identity: 'alice', tags: ['admin'], backend: 'basic' })
  t.equal((await me('wrong')).status, 401)

  await elsewhere.setTags('alice', 'reader')
  await waitUntil(async () => (await me()).body.tags?.[0] === 'reader', { what: 'the new tags' })
  t.same((await me()).body, { identity: 'alice', tags: ['reader'], backend: 'basic' }, 're-tagged elsewhere: the current tags')
  await elsewhere.setPassword('alice', 'looking-glass-2')
  await waitUntil(async () => (await me()).status === 401, { what: 'the old password refused' })
  t.equal((await me()).status, 401, 'a new password set elsewhere: the cached old one is refused')
  t.equal((await me('looking-glass-2')).status, 200)
  await elsewhere.setEnabled('alice', false)
  await waitUntil(async () => (await me('looking-glass-2')).status === 401, { what: 'the disabled user refused' })
  t.equal((await me('looking-glass-2')).status, 401, 'disabled elsewhere: refused')
  await elsewhere.setEnabled('alice', true)
  // The refused entry is kept (D-AUTH-42): the re-enable arrives as a disable does, by notification.
  await waitUntil(async () => (await me('looking-glass-2')).status === 200, { what: 'the re-enabled user served again' })
  t.equal((await me('looking-glass-2')).status, 200)
  await elsewhere.delete('alice')
  await waitUntil(async () => (await me('looking-glass-2')).status === 401, { what: 'the deleted user refused' })
  t.equal((await me('looking-glass-2')).status, 401, 'deleted elsewhere: refused')
})
