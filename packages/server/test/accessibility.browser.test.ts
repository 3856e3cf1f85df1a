import { test } from 'tap'
import type { FastifyRequest } from 'fastify'
import type { Page } from 'playwright-core'
import { MemoryUserStore } from '@fastify-gatehouse/auth'
import { AppServer, RoutedApplication, route } from '@fastify-gatehouse/server'
import { fakeDateNow } from '../../../test-helpers/clock.js'
import { axeViolations } from './helpers/axe.js'
import { browserSkip, launch, loopbackContext } from './helpers/browser.js'

class Shop extends RoutedApplication {
  @route('/reports', { authRule: 'finance' })
  async reports (request: FastifyRequest) { return { for: request.scope.auth?.identity } }
}

// axe-core in headless Chromium, WCAG 2.1 A and AA (wcag2a, wcag2aa,
// wcag21a, wcag21aa): 0 violations on every page Gatehouse renders. axe is
// injected as an inline script, which the pages' CSP forbids: the context
// bypasses the CSP (`bypassCSP: true`), for this check only (D-TOOLING-22).
test('every page Gatehouse renders: 0 WCAG 2.1 A/AA violations (axe-core)', { skip: browserSkip() }, async (t) => {
  // The server runs in this process: moving its clock makes a sign-in old without waiting.
  const clock = fakeDateNow(t)
  const users = new MemoryUserStore({ scrypt: { N: 1024, r: 8, p: 1 } })
  await users.add('alice', { password: 'alice-pass', tags: ['finance'] })
  await users.add('bob', { password: 'bob-pass-1', tags: [] })
  const server = new AppServer({
    logger: false,
    primary: new Shop(),
    users,
    login: true,
    // Never contacted: its button is on the login page (the "or" divider with it), and a
    // callback without a sign-in in progress is refused before discovery (the sign-in-failed page).
    externalUrl: 'http://127.0.0.1',
    serverApp: { oidc: { corp: { issuer: 'https://idp.example', clientId: 'c', clientSecret: 's', label: 'Corporate SSO' } } }
  })
  t.teardown(() => server.close())
  const base = await server.serve('127.0.0.1', 0)
  const browser = await launch()
  t.teardown(() => browser.close())

  const context = await loopbackContext(browser, { bypassCSP: true })
  const other = await loopbackContext(browser)
  const page = await context.newPage()
  const check = async (what: string, url: string, expect: (page: Page) => Promise<unknown>): Promise<void> => {
    await page.goto(`${base}${url}`)
    await expect(page)
    t.same(await axeViolations(page), [], `${what}: no violation`)
  }
  const heading = (text: string) => async (page: Page) => await page.getByRole('heading', { level: 1, name: text }).waitFor()
  const signIn = async (on: Page, identity: string, password: string, next = '/') => {
    await on.goto(`${base}/_server/login_page?next=${encodeURIComponent(next)}`)
    await on.getByLabel('Identity').fill(identity)
    await on.getByLabel('Password').fill(password)
    await on.getByRole('button', { name: 'Sign in with Password' }).click()
    await on.waitForURL((url) => !url.pathname.endsWith('/login_page'))
  }

  // The control: the check finds what it is there to find.
  await page.setContent('<!doctype html><html><body><form><input name="x"><p style="color:#aaa">faint</p></form></body></html>')
  t.same((await axeViolations(page)).map((v) => v.id).sort(), ['color-contrast', 'document-title', 'html-has-lang', 'label'], 'axe runs, and reports a page without lang, title, label or contrast')

  await check('the login page', '/_server/login_page?next=/reports', heading('Sign in'))
  await check('the login page after a wrong password', '/_server/login_page?error=invalid', async (p) => await p.getByRole('alert').filter({ hasText: 'Invalid identity or password.' }).waitFor())
  await check('the sign-in-failed page', '/_server/auth/oidc:corp/callback?state=forged&code=x', heading('Sign-in failed'))
  await check('the sign-out page, signed out', '/_server/logout', heading('Sign out'))

  await signIn(page, 'bob', 'bob-pass-1')
  await check('the 403 page', '/reports', heading('No access'))
  await check('the sign-in-failed page, signed in', '/_server/auth/oidc:corp/callback?state=forged&code=x', heading('Sign-in failed'))
  await check('the login page, signed in', '/_server/login_page?next=/reports', heading('Sign in'))

  // alice with a second session, so the table has a row to revoke.
  await signIn(await other.newPage(), 'alice', 'alice-pass')
  await signIn(page, 'alice', 'alice-pass', '/_server/account')
  await check('the account page', '/_server/account', async (p) => await p.getByRole('button', { name: 'Sign out everywhere else' }).waitFor())
  await check('the account page after a change', '/_server/account?done=password-changed&ended=1', async (p) => await p.getByRole('status').filter({ hasText: 'Your password was changed' }).waitFor())
  await check('the account page after a refusal', '/_server/account?error=weak&rule=common', async (p) => await p.getByRole('alert').filter({ hasText: 'most common' }).waitFor())
  await check('the sign-out page', '/_server/logout', async (p) => await p.getByRole('button', { name: 'Sign out' }).waitFor())
  clock.advance(601_000)
  await check('the account page, sign-in too old', '/_server/account', async (p) => await p.getByRole('heading', { name: 'Confirm it\'s you' }).waitFor())
  await check('the login page confirming it is you', '/_server/login_page?next=%2F_server%2Faccount&reauth=1', heading('Confirm it\'s you'))
  await other.close()
  await context.close()
})
