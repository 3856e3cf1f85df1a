import { test } from 'tap'
import type { Browser } from 'playwright-core'
import { AppServer } from '@fastify-gatehouse/server'
import { browserSkip, launch, loopbackContext } from './helpers/browser.js'
import { freePort, startIdp } from './helpers/idp.js'

// The provider on 127.0.0.1 and the relying party on localhost: two sites
// to the browser, as in real deployments.
test('OIDC sign-in in a real browser: login page → provider → back signed in at next', { skip: browserSkip() }, async (t) => {
  const port = await freePort()
  const base = `http://localhost:${port}`
  const idp = await startIdp([`${base}/_server/auth/oidc:local/callback`])
  const server = new AppServer({
    logger: false,
    externalUrl: base,
    login: true,
    serverApp: { oidc: { local: { issuer: idp.issuer, clientId: 'gatehouse', clientSecret: 'gatehouse-client-secret', label: 'Local IdP', tags: 'staff' } }, allowInsecureIssuers: true }
  })
  server.register(async (app) => { app.get('/me', { authRule: 'staff' }, async (req) => ({ you: req.scope.auth?.identity })) })
  // Registered before launching, so a failed launch does not leave the
  // servers open (the test would hang to its timeout).
  // eslint-disable-next-line prefer-const -- the teardown, registered before launch(), reads it
  let browser: Browser | undefined
  t.teardown(async () => { await browser?.close(); await server.close(); await idp.close() })
  await server.serve('localhost', port)
  browser = await launch()

  const context = await loopbackContext(browser)
  const page = await context.newPage()
  await page.goto(`${base}/me`)
  t.match(page.url(), /\/_server\/login_page\?next=%2Fme$/, 'sent to sign in')
  await page.getByRole('link', { name: 'Sign in with Local IdP' }).click()
  await page.waitForURL(new RegExp(`^${idp.issuer}/interaction/`))
  await page.locator('input[name=login]').fill('alice')
  await page.locator('input[name=password]').fill('any')
  await page.getByRole('button', { name: 'Sign-in' }).click()
  await page.getByRole('button', { name: 'Continue' }).click()
  await page.waitForURL(`${base}/me`)
  t.same(JSON.parse(await page.locator('body').innerText()), { you: 'alice' })
  const cookie = (await context.cookies(base)).find((c) => c.name === 'session_id')
  t.match(cookie, { httpOnly: true, sameSite: 'Lax' }, 'session cookie HttpOnly, SameSite=Lax')
  await context.close()
})
