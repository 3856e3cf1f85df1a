// Issue 26, item 2: the admin API lets a store's coded errors through as
// they are (class, code, status, headers, fixed sentence); only their cause
// is replaced. A coded 503 keeps its Retry-After. D-CODES-07.
import { test } from 'tap'
import { GATEHOUSE_AUTH_STORE_FILE, GATEHOUSE_AUTH_STORE_INPUT, MemoryUserStore } from '@fastify-gatehouse/auth'
import { GATEHOUSE_POSTGRES_UNAVAILABLE } from '@fastify-gatehouse/postgres'
import { AppServer } from '@fastify-gatehouse/server'

const SECRET = 'pw-in-the-driver-error'

/** A user store whose `list` throws what `failure` makes, once the server is up. */
class FailingUsers extends MemoryUserStore {
  failure: (() => Error) | undefined
  override async list (): ReturnType<MemoryUserStore['list']> {
    if (this.failure !== undefined) throw this.failure()
    return await super.list()
  }
}

async function adminServer (t: { teardown: (fn: () => unknown) => void }): Promise<{ users: FailingUsers, list: () => ReturnType<AppServer['inject']> }> {
  const users = new FailingUsers({ scrypt: { N: 1024, r: 8, p: 1 } })
  const server = new AppServer({ logger: false, users, adminPassword: 'gatekeeper-pass' })
  t.teardown(async () => await server.close())
  const login = await server.inject({ method: 'POST', url: '/_server/login', payload: { identity: 'admin', password: 'gatekeeper-pass' } })
  const cookie = String(login.headers['set-cookie']).split(';')[0]!
  return { users, list: async () => await server.inject({ url: '/_server/users', headers: { cookie } }) }
}

test('a store\'s coded 503 keeps its status, code, sentence and Retry-After over inject; its cause is not sent', async (t) => {
  const { users, list } = await adminServer(t)
  users.failure = () => new GATEHOUSE_POSTGRES_UNAVAILABLE({ cause: new Error(SECRET) })
  const res = await list()
  t.equal(res.statusCode, 503)
  t.equal(res.headers['retry-after'], '5', 'the class\'s Retry-After')
  t.same(res.json(), { statusCode: 503, code: 'GATEHOUSE_POSTGRES_UNAVAILABLE', error: 'Service Unavailable', message: 'database unavailable: try again shortly' })
  t.notMatch(res.body, SECRET)
})

test('a store\'s coded 4xx passes with its sentence; a coded 500 that is not written for the caller is a plain 500', async (t) => {
  const { users, list } = await adminServer(t)
  users.failure = () => new GATEHOUSE_AUTH_STORE_INPUT('identity "bob" exists already')
  const refused = await list()
  t.equal(refused.statusCode, 400)
  t.same(refused.json(), { statusCode: 400, code: 'GATEHOUSE_AUTH_STORE_INPUT', error: 'Bad Request', message: 'identity "bob" exists already' })

  users.failure = () => new GATEHOUSE_AUTH_STORE_FILE('/srv/users.json', `cannot read: ${SECRET}`)
  const failed = await list()
  t.equal(failed.statusCode, 500)
  t.same(failed.json(), { statusCode: 500, code: 'GATEHOUSE_ERRORS_INTERNAL', error: 'Internal Server Error', message: 'Internal Server Error' })
  t.notMatch(failed.body, SECRET)
})
