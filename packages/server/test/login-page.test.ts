import { test } from 'tap'
import Fastify from 'fastify'
import { middlewareChain } from '@fastify-gatehouse/core'
import { MemoryUserStore } from '@fastify-gatehouse/auth'
import { allComponents, PasswordMethod, serverApp, type AuthMethod } from '@fastify-gatehouse/server'

const redirect = (id: string, label: string): AuthMethod => ({
  id,
  describe: (prefix) => ({ id, kind: 'redirect', label, url: `${prefix}/auth/${id}/start` }),
  register: () => {}
})

async function build (methods?: AuthMethod[]) {
  const users = new MemoryUserStore({ scrypt: { N: 1024, r: 8, p: 1 } })
  const app = Fastify()
  await middlewareChain(app, { middleware: { session: true } }, { components: allComponents })
  await app.register(serverApp, { prefix: '/_server', methods: methods ?? [new PasswordMethod({ users }), redirect('oidc:local', 'Local <IdP> & "co"')] })
  await app.ready()
  return app
}

test('the page: a labelled form, one button per redirect method, strict CSP', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  const res = await app.inject('/_server/login_page?next=/orders%3Fpage%3D2')
  t.equal(res.statusCode, 200)
  t.equal(res.headers['content-type'], 'text/html; charset=utf-8')
  t.equal(res.headers['content-security-policy'], "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
  t.equal(res.headers['x-frame-options'], 'DENY')
  t.equal(res.headers['cache-control'], 'no-store')
  const html = res.body
  t.match(html, '<html lang="en">')
  t.match(html, '<label for="identity">Identity</label>')
  t.match(html, '<input id="identity" name="identity" autocomplete="username" required autofocus>')
  t.match(html, '<label for="password">Password</label>')
  t.match(html, 'autocomplete="current-password"')
  t.match(html, '<p id="error" role="alert" aria-live="polite" tabindex="-1"></p>')
  t.match(html, '<form id="password-form" method="post" action="/_server/login" data-next="/orders?page=2" novalidate>')
  t.match(html, '<input type="hidden" name="next" value="/orders?page=2">')
  t.match(html, '<a class="button" href="/_server/auth/oidc:local/start?next=%2Forders%3Fpage%3D2">Sign in with Local &lt;IdP&gt; &amp; &quot;co&quot;</a>', 'labels are escaped')
  t.notMatch(html, /<script>|style=|onclick|<style>/, 'no inline script or style')
})

test('next and error never inject anything', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  for (const next of ['//evil.example', 'javascript:alert(1)', '/"><script>alert(1)</script>']) {
    const html = (await app.inject(`/_server/login_page?next=${encodeURIComponent(next)}`)).body
    t.notMatch(html, /evil\.example|javascript:|<script>alert/, next)
  }
  const quoted = (await app.inject(`/_server/login_page?next=${encodeURIComponent('/a"b<c')}`)).body
  t.match(quoted, 'data-next="/a%22b%3Cc"', 'a kept next is encoded')
  t.match((await app.inject('/_server/login_page?error=invalid')).body, '>Invalid identity or password.</p>')
  t.match((await app.inject('/_server/login_page?error=locked')).body, '>Too many failed sign-ins. Try again later.</p>')
  t.match((await app.inject('/_server/login_page?error=locked&retry=30')).body, '>Too many failed sign-ins. Try again in 30 seconds.</p>', 'the lockout wait')
  t.match((await app.inject('/_server/login_page?error=locked&retry=%3Cb%3E')).body, '>Too many failed sign-ins. Try again later.</p>', 'a retry that is not digits is not shown')
  t.match((await app.inject('/_server/login_page?error=%3Cb%3Ehi')).body, '<p id="error" role="alert" aria-live="polite" tabindex="-1"></p>', 'unknown codes show nothing')
})

test('the script and stylesheet are served as files', async (t) => {
  const app = await build()
  t.teardown(() => app.close())
  const js = await app.inject('/_server/login.js')
  t.equal(js.headers['content-type'], 'text/javascript; charset=utf-8')
  t.match(js.body, "document.getElementById('password-form')")
  const css = await app.inject('/_server/login.css')
  t.equal(css.headers['content-type'], 'text/css; charset=utf-8')
})

test('with no method configured the page says so', async (t) => {
  const app = await build([])
  t.teardown(() => app.close())
  t.match((await app.inject('/_server/login_page')).body, '<p>No sign-in method is configured.</p>')
})
