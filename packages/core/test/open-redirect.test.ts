import { test } from 'tap'
import { safeNextPath } from '@fastify-gatehouse/core'

test('safeNextPath keeps same-origin paths with query and fragment', async (t) => {
  t.equal(safeNextPath('/'), '/')
  t.equal(safeNextPath('/orders?page=2&sort=asc'), '/orders?page=2&sort=asc')
  t.equal(safeNextPath('/a/b#frag'), '/a/b#frag')
  t.equal(safeNextPath('/javascript:alert(1)'), '/javascript:alert(1)', 'a colon inside a path is just a path')
  t.equal(safeNextPath('/caf\u00e9 menu'), '/caf%C3%A9%20menu', 'non-ASCII and spaces are encoded for the Location header')
  t.equal(safeNextPath('/a/../b'), '/b')
})

test('safeNextPath refuses everything that leaves the origin', async (t) => {
  const hostile = [
    '//evil.example', '//evil.example/path', '/\\evil.example', '\\\\evil.example',
    'https://evil.example', 'http:/evil.example', 'javascript:alert(1)', 'JAVASCRIPT:alert(1)',
    'data:text/html,<script>', 'evil.example', '',
    '/%2F/evil.example', '%2F%2Fevil.example', '/%5Cevil.example', '%2f%2fevil.example',
    '/%2e%2e/%2e%2e//evil.example', '/\t/evil.example', '/%09/evil.example', '/\n/evil', '/%0d%0aSet-Cookie:x=1',
    '/%00', '/%', '/%E0%A4%A', '/' + 'a'.repeat(2048)
  ]
  for (const next of hostile) t.equal(safeNextPath(next), '/', JSON.stringify(next))
})

test('safeNextPath refuses non-strings', async (t) => {
  for (const next of [undefined, null, 42, ['/a'], { a: 1 }]) t.equal(safeNextPath(next), '/')
})

test('safeNextPath never names a /_server route: they are POST endpoints, APIs and the login page itself', async (t) => {
  const server = [
    '/_server', '/_server/', '/_server/login', '/_server/login?x=1', '/_server/login_page?next=/orders',
    '/_server/logout', '/_server/users/alice', '/_server/auth/oidc:corp/callback?code=x',
    '/%5Fserver/login', '/%5fserver/login', '/_SERVER/login', '/_Server/login', '/a/../_server/login', '/./_server/login',
    '/_server%2Flogin'
  ]
  for (const next of server) t.equal(safeNextPath(next), '/', JSON.stringify(next))
  // Only the /_server segment itself, not a look-alike.
  for (const next of ['/_servers', '/_server-status', '/app/_server/login', '/_serverless?x=1']) t.equal(safeNextPath(next), next, next)
})

test('safeNextPath keeps the account page, the one /_server page to come back to, without its query', async (t) => {
  for (const next of ['/_server/account', '/_server/account?done=password', '/_server/%61ccount', '/_server/x/../account', '/_server/account#top']) {
    t.equal(safeNextPath(next), '/_server/account', JSON.stringify(next))
  }
  for (const next of [
    '/_server/account/', '/_server/accounts', '/_server/account.js', '/_server/account/me', '/_server/account/password',
    '/_SERVER/account', '/_server/Account', '//_server/account', '/_server/account/../login'
  ]) {
    t.equal(safeNextPath(next), '/', JSON.stringify(next))
  }
})
