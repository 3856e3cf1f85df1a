import { test } from 'tap'
import type { FastifyRequest } from 'fastify'
import { MemoryUserStore } from '@fastify-gatehouse/auth'
import { AppServer, RoutedApplication, route } from '@fastify-gatehouse/server'
import { browserSkip, launch, loopbackContext } from '../helpers/browser.js'

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'
const SIGN_OUT = /<form method="post" action="\/_server\/account\/logout">\n(?:<input type="hidden" name="next" value="[^"]*">\n)?<button type="submit">Sign out<\/button>\n<\/form>/

class Shop extends RoutedApplication {
  @route('/reports', { authRule: 'finance' })
  async reports (request: FastifyRequest) { return { for: request.scope.auth?.identity } }
}

// Every HTML page Gatehouse serves to a signed-in browser: the account page
// and the sign-out page (they need a sign-in), the 403 page (a signed-in
// caller refused), and the login and sign-in-failed pages seen while signed in.
const PAGES: ReadonlyArray<readonly [string, string, number]> = [
  ['the account page', '/_server/account', 200],
  ['the sign-out page', '/_server/logout', 200],
  ['the 403 page', '/reports', 403],
  ['the login page', '/_server/login_page', 200],
  ['the sign-in-failed page', '/_server/auth/oidc:corp/callback?state=forged&code=x', 400]
]

async function build () {
  const users = new MemoryUserStore({ scrypt: { N: 1024, r: 8, p: 1 } })
  await users.add('alice', { password: 'alice-pass', tags: [] })
  return new AppServer({
    logger: false,
    primary: new Shop(),
    users,
    login: true,
    externalUrl: 'http://127.0.0.1',
    serverApp: { oidc: { corp: { issuer: 'https://idp.example', clientId: 'c', clientSecret: 's' } } }
  })
}

test('ASVS 5.0 V7.4.4: every page that requires authentication has easy and visible access to sign-out', async (t) => {
  const server = await build()
  t.teardown(() => server.close())
  const signIn = async (): Promise<string> => {
    const res = await server.inject({ method: 'POST', url: '/_server/login', payload: { identity: 'alice', password: 'alice-pass' } })
    return String(res.headers['set-cookie']).split(';')[0]!
  }
  const cookie = await signIn()
  for (const [what, url, status] of PAGES) {
    const res = await server.inject({ url, headers: { accept: BROWSER, cookie } })
    t.equal(res.statusCode, status, `${what}: ${status}`)
    t.match(res.headers['content-type'], /^text\/html/, `${what}: a page`)
    t.match(res.body, /[Ss]igned in as <strong>alice<\/strong>/, `${what}: says who is signed in`)
    t.match(res.body, SIGN_OUT, `${what}: a sign-out button, a plain form (no script needed)`)
    t.notMatch(res.body, /<details|hidden>|class="visually-hidden">Sign out/, `${what}: not tucked away`)
  }

  // The control does what it says: a form post signs out, here and for every later request.
  const form = await server.inject({ method: 'POST', url: '/_server/account/logout', headers: { cookie, accept: BROWSER, 'content-type': 'application/x-www-form-urlencoded' }, payload: '' })
  t.equal(form.statusCode, 303)
  t.equal(form.headers.location, '/_server/login_page')
  t.match(String(form.headers['set-cookie']), /^session_id=;/, 'the cookie is cleared')
  t.equal((await server.inject({ url: '/_server/account', headers: { accept: BROWSER, cookie } })).headers.location, '/_server/login_page?next=%2F_server%2Faccount', 'the old cookie no longer signs in')

  await t.test('in a real browser: the sign-out button is visible in the first screen of every page', { skip: browserSkip() }, async (t) => {
    const base = await server.serve('127.0.0.1', 0)
    const browser = await launch()
    t.teardown(() => browser.close())
    const context = await loopbackContext(browser, { viewport: { width: 1280, height: 720 } })
    const page = await context.newPage()
    await page.goto(`${base}/_server/login_page?next=%2F_server%2Faccount`)
    await page.getByLabel('Identity').fill('alice')
    await page.getByLabel('Password').fill('alice-pass')
    await page.getByRole('button', { name: 'Sign in with Password' }).click()
    await page.waitForURL(`${base}/_server/account`)
    for (const [what, url] of PAGES) {
      await page.goto(`${base}${url}`)
      const button = page.getByRole('button', { name: 'Sign out', exact: true }).first()
      t.ok(await button.isVisible(), `${what}: visible`)
      const box = await button.boundingBox()
      t.ok(box !== null && box.y >= 0 && box.y + box.height <= 720, `${what}: in the first screen, no scrolling (y=${box?.y})`)
    }
    await page.goto(`${base}/_server/account`)
    await page.getByRole('button', { name: 'Sign out', exact: true }).first().click()
    await page.waitForURL(`${base}/_server/login_page`)
    await page.goto(`${base}/_server/account`)
    t.equal(page.url(), `${base}/_server/login_page?next=%2F_server%2Faccount`, 'signed out by the button')
    await context.close()
  })
})
