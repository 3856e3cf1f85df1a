// Issue 13, item 11: with two Authorization headers the first won silently
// (Node's parser drops the others), while a proxy that reads the last one
// would have authorised someone else. Several are now a 400.
import { test } from 'tap'
import { rawRequest } from '../helpers/raw-request.js'
import { basicHeader, build } from '../helpers/build.js'

const options = {
  basic: { root: { password: 'root-pass', tags: 'admin' } },
  bearer: { reader: { token: 'reader-token', tags: 'reader' }, admin: { token: 'admin-token', tags: 'admin' } }
}

const raw = (port: number, lines: readonly string[]) => rawRequest(port, 'GET /admin HTTP/1.1', lines)

test('two Authorization headers over a real socket: 400, whatever their case and order', async (t) => {
  const app = await build(options)
  t.teardown(() => app.close())
  await app.listen({ host: '127.0.0.1', port: 0 })
  const { port } = app.server.address() as { port: number }

  const single = await raw(port, ['Authorization: Bearer admin-token'])
  t.equal(single.status, 200, 'one header: served')
  t.equal((await raw(port, ['Authorization: Bearer reader-token'])).status, 403, 'the reader alone is refused by the rule')

  const pairs: Array<[string, string[]]> = [
    ['the admin first (the first one used to win)', ['Authorization: Bearer admin-token', 'Authorization: Bearer reader-token']],
    ['the admin last (what a last-wins proxy sees)', ['Authorization: Bearer reader-token', 'Authorization: Bearer admin-token']],
    ['mixed case names', ['AUTHORIZATION: Bearer admin-token', 'authorization: Bearer reader-token']],
    ['odd case names', ['aUtHoRiZaTiOn: Bearer admin-token', 'Authorization: Basic ' + basicHeader('root', 'root-pass').slice(6)]],
    ['the same value twice', ['Authorization: Bearer admin-token', 'Authorization: Bearer admin-token']],
    ['other headers between them', ['Authorization: Bearer admin-token', 'Accept: */*', 'X-Authorization: x', 'Authorization: Bearer admin-token']],
    ['three of them', ['Authorization: Bearer admin-token', 'Authorization: Bearer admin-token', 'Authorization: Bearer admin-token']]
  ]
  for (const [what, lines] of pairs) {
    const res = await raw(port, lines)
    t.equal(res.status, 400, what)
    t.same(JSON.parse(res.body), { statusCode: 400, code: 'GATEHOUSE_AUTH_DUPLICATE_AUTHORIZATION', error: 'Bad Request', message: 'Send one Authorization header, not several' }, what)
  }

  const lookalikes = await raw(port, ['Authorization: Bearer admin-token', 'Proxy-Authorization: Basic eDp5', 'X-Authorization: x', 'Authorizatio: y', 'Authorizations: z'])
  t.equal(lookalikes.status, 200, 'headers whose names only resemble it do not count')
})

test('two Authorization headers through inject: 400 as well', async (t) => {
  const app = await build(options)
  t.teardown(() => app.close())
  // light-my-request sends a header given as a list once per value, as a socket would
  // (its types say string: Node's IncomingHttpHeaders never hold a list for authorization).
  const twice = ['Bearer admin-token', 'Bearer reader-token'] as unknown as string
  const res = await app.inject({ url: '/admin', headers: { authorization: twice } })
  t.equal(res.statusCode, 400)
  t.equal(res.json().code, 'GATEHOUSE_AUTH_DUPLICATE_AUTHORIZATION')
  t.notOk(res.headers['www-authenticate'], 'not a challenge: the request itself is malformed')
  t.equal((await app.inject({ url: '/admin', headers: { authorization: 'Bearer admin-token' } })).statusCode, 200)
  t.equal((await app.inject({ url: '/open' })).statusCode, 200, 'no header at all: anonymous, as before')
})
