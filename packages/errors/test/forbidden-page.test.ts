import { test } from 'tap'
import { Avatar, HttpError, PAGE_HEADERS } from '@fastify-gatehouse/core'
import { build } from './helpers/build.js'

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'

// `x-user` stands in for a signed-in caller (with the tags of `x-tags`);
// /reports needs the tag finance (a route rule), /mine refuses by its own 403.
async function app (options: Record<string, unknown> = { login: true }) {
  return build(options, (app) => {
    app.addHook('onRequest', async (req) => {
      const user = req.headers['x-user']
      if (typeof user === 'string') req.scope.auth = new Avatar(user, { backend: 'test', tags: String(req.headers['x-tags'] ?? '') })
    })
    app.get('/reports', { authRule: 'finance' }, async () => 'the reports')
    app.post('/reports', { authRule: 'finance' }, async () => 'posted')
    app.get('/mine', async () => { throw new HttpError(403, 'Only the <owner> may see this') })
  })
}

test('a signed-in browser refused by a route rule gets the 403 page: who, no access, switch account, sign out', async (t) => {
  const { app: server } = await app()
  t.teardown(() => server.close())
  const res = await server.inject({ url: '/reports?year=2024', headers: { accept: BROWSER, 'x-user': 'bob' } })
  t.equal(res.statusCode, 403)
  t.equal(res.headers['content-type'], 'text/html; charset=utf-8')
  for (const [name, value] of Object.entries(PAGE_HEADERS)) t.equal(res.headers[name], value, name)
  t.notOk(res.headers.location, 'not sent to sign in again: bob is signed in')
  const html = res.body
  t.match(html, '<html lang="en">')
  t.match(html, '<title>No access</title>')
  t.match(html, '<link rel="stylesheet" href="/_server/login.css">')
  t.match(html, '<p class="signed-in">Signed in as <strong>bob</strong>.</p>')
  t.match(html, '<p>You do not have access to this page.</p>')
  t.notMatch(html, 'Insufficient permissions', 'a route rule\'s refusal adds nothing to the sentence')
  t.match(html, `<form method="post" action="/_server/account/logout">
<input type="hidden" name="next" value="/reports?year=2024">
<button type="submit">Switch account</button>
</form>`, 'switch account: signs out, then the login page brings bob back here')
  t.match(html, `<form method="post" action="/_server/account/logout">
<button type="submit">Sign out</button>
</form>`)
  t.notMatch(html, /<script|style=|<style/, 'no script, no inline style')
  const head = await server.inject({ method: 'HEAD', url: '/reports', headers: { accept: BROWSER, 'x-user': 'bob' } })
  t.equal(head.statusCode, 403)
  t.equal(head.headers['content-type'], 'text/html; charset=utf-8')
  t.equal(head.body, '')
  const allowed = await server.inject({ url: '/reports', headers: { accept: BROWSER, 'x-user': 'bob', 'x-tags': 'finance' } })
  t.equal(allowed.body, 'the reports')
})

test('nothing from the request is shown unescaped, and next is a safe path', async (t) => {
  const { app: server } = await app()
  t.teardown(() => server.close())
  const res = await server.inject({ url: '/reports?q=%22%3E%3Cscript%3Ealert(1)%3C/script%3E', headers: { accept: BROWSER, 'x-user': '<b>"bob"&</b>' } })
  t.equal(res.statusCode, 403)
  t.match(res.body, 'Signed in as <strong>&lt;b&gt;&quot;bob&quot;&amp;&lt;/b&gt;</strong>')
  t.match(res.body, 'name="next" value="/reports?q=%22%3E%3Cscript%3Ealert(1)%3C/script%3E"')
  t.notMatch(res.body, /<script|<b>/)
  const own = await server.inject({ url: '/mine', headers: { accept: BROWSER, 'x-user': 'bob' } })
  t.equal(own.statusCode, 403)
  t.match(own.body, '<p>You do not have access to this page.</p>\n<p>Only the &lt;owner&gt; may see this</p>', 'an app\'s own 403 keeps its message, escaped')
})

test('the URLs come from the options (AppServer sets them)', async (t) => {
  const { app: server } = await app({ login: true, logoutAction: '/auth/sign-out', stylesheet: '/static/site.css' })
  t.teardown(() => server.close())
  const html = (await server.inject({ url: '/reports', headers: { accept: BROWSER, 'x-user': 'bob' } })).body
  t.match(html, '<link rel="stylesheet" href="/static/site.css">')
  t.equal(html.split('<form method="post" action="/auth/sign-out">').length, 3, 'both forms post there')
})

test('only browser navigations of signed-in callers, with the login surface on, get the page', async (t) => {
  const { app: server } = await app()
  t.teardown(() => server.close())
  const api = await server.inject({ url: '/reports', headers: { 'x-user': 'bob' } })
  t.equal(api.statusCode, 403)
  t.same(api.json(), { statusCode: 403, code: 'GATEHOUSE_CORE_FORBIDDEN', error: 'Forbidden', message: 'Insufficient permissions for this route' })
  const both = await server.inject({ url: '/reports', headers: { accept: 'text/html, application/json', 'x-user': 'bob' } })
  t.equal(both.headers['content-type'], 'application/json; charset=utf-8', 'a caller that takes JSON gets JSON')
  const post = await server.inject({ method: 'POST', url: '/reports', headers: { accept: BROWSER, 'x-user': 'bob' } })
  t.equal(post.statusCode, 403)
  t.equal(post.body, '403 Forbidden: Insufficient permissions for this route', 'a form POST is not a navigation')
  const anonymous = await server.inject({ url: '/reports', headers: { accept: BROWSER } })
  t.equal(anonymous.statusCode, 302, 'anonymous: sent to sign in, as before')
  const { app: off } = await app({ login: false })
  t.teardown(() => off.close())
  const plain = await off.inject({ url: '/reports', headers: { accept: BROWSER, 'x-user': 'bob' } })
  t.equal(plain.statusCode, 403)
  t.equal(plain.body, '403 Forbidden: Insufficient permissions for this route', 'login off: no sign-in surface to offer')
})

test('logoutAction and stylesheet must be paths of this origin', async (t) => {
  for (const [key, value] of [['logoutAction', 'https://evil.example/logout'], ['logoutAction', '//evil.example'], ['stylesheet', '/a.css?x=1'], ['stylesheet', 'a.css']] as const) {
    await t.rejects(build({ login: true, [key]: value }), { code: 'GATEHOUSE_CORE_INVALID_OPTIONS', message: new RegExp(`errors options\\.${key}|middleware\\.errors\\.${key}`) }, `${key}: ${value}`)
  }
})
