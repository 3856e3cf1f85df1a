import { test, type Test } from 'tap'
import { mkdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { FastifyRequest } from 'fastify'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { MemoryUserStore } from '@fastify-gatehouse/auth'
import { AppServer, RoutedApplication, route } from '@fastify-gatehouse/server'
import { browserSkip, launch, loopbackContext } from './helpers/browser.js'

// Screenshots, git-ignored, beside the login page's (D-TOOLING-23).
const ARTIFACTS = fileURLToPath(new URL('../../../test-artifacts/', import.meta.url))
const NEW_PASSWORD = 'violet-kestrel-2931'

class Shop extends RoutedApplication {
  @route('/orders', { authRule: 'ops' })
  async orders (request: FastifyRequest) { return { orders: [], for: request.scope.auth?.identity } }

  @route('/reports', { authRule: 'finance' })
  async reports (request: FastifyRequest) { return { reports: [], for: request.scope.auth?.identity } }
}

async function startServer (t: Test): Promise<string> {
  const users = new MemoryUserStore({ scrypt: { N: 1024, r: 8, p: 1 } })
  await users.add('alice', { password: 'alice-pass', tags: ['ops', 'finance'] })
  await users.add('bob', { password: 'bob-pass-1', tags: ['ops'] })
  // freshFor an hour: the flows must not depend on how fast a busy machine runs them.
  const server = new AppServer({ logger: false, primary: new Shop(), users, login: true, serverApp: { account: { freshFor: 3600 } } })
  t.teardown(() => server.close())
  return await server.serve('127.0.0.1', 0)
}

async function signIn (page: Page, identity: string, password: string): Promise<void> {
  await page.getByLabel('Identity').fill(identity)
  await page.getByLabel('Password', { exact: true }).fill(password)
  await page.getByRole('button', { name: 'Sign in with Password' }).click()
}

async function screenshot (page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true })
  await page.screenshot({ path: `${ARTIFACTS}${name}.png`, fullPage: true })
}

/** A second browser (its own cookie jar) signed in as `identity`, resting on its account page. */
async function secondBrowser (browser: Browser, base: string, javaScriptEnabled: boolean, identity: string, password: string): Promise<{ context: BrowserContext, page: Page }> {
  const context = await loopbackContext(browser, { javaScriptEnabled })
  const page = await context.newPage()
  await page.goto(`${base}/_server/login_page?next=%2F_server%2Faccount`)
  await signIn(page, identity, password)
  await page.waitForURL(`${base}/_server/account`)
  return { context, page }
}

/** The other browser's next navigation: the login page, signed out. */
async function assertSignedOut (t: Test, page: Page, base: string, what: string): Promise<void> {
  await page.goto(`${base}/_server/account`)
  t.equal(page.url(), `${base}/_server/login_page?next=%2F_server%2Faccount`, `${what}: the other browser lands on the login page`)
  t.equal(await page.getByRole('heading', { level: 1 }).innerText(), 'Sign in')
}

const rows = async (page: Page): Promise<number> => await page.locator('tbody tr').count()

for (const javaScriptEnabled of [true, false]) {
  const mode = javaScriptEnabled ? 'js' : 'nojs'
  test(`the account page in a real browser, JavaScript ${javaScriptEnabled ? 'on' : 'off'}`, { skip: browserSkip() }, async (t) => {
    const base = await startServer(t)
    const browser = await launch()
    t.teardown(() => browser.close())
    const context = await loopbackContext(browser, { javaScriptEnabled })
    const page = await context.newPage()

    // Sign in, sent there by the account page itself.
    await page.goto(`${base}/_server/account`)
    t.equal(page.url(), `${base}/_server/login_page?next=%2F_server%2Faccount`, 'anonymous: sent to sign in')
    await signIn(page, 'alice', 'alice-pass')
    await page.waitForURL(`${base}/_server/account`)
    t.equal(await page.getByRole('heading', { level: 1 }).innerText(), 'Your account')
    t.match(await page.getByRole('banner').innerText(), /Signed in as alice/)
    t.ok(await page.getByRole('banner').getByRole('button', { name: 'Sign out' }).isVisible(), 'sign-out is in sight')
    t.equal(await rows(page), 1, 'one session')

    // Another browser signs in: this one sees it.
    const other = await secondBrowser(browser, base, javaScriptEnabled, 'alice', 'alice-pass')
    await page.reload()
    t.equal(await rows(page), 2, 'two sessions')
    t.equal(await page.locator('tr[aria-current="true"]').count(), 1)
    t.match(await page.locator('tr[aria-current="true"]').innerText(), /\(this session\)/)
    await screenshot(page, `account-page-${mode}`)

    // Change the password: every other session ends.
    await page.getByLabel('Current password').fill('alice-pass')
    await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD)
    await page.getByLabel('New password again').fill(NEW_PASSWORD)
    await page.getByRole('button', { name: 'Change password' }).click()
    await page.waitForURL(`${base}/_server/account?done=password-changed&ended=1`)
    t.equal(await page.getByRole('status').innerText(), 'Your password was changed, and your 1 other session ended.')
    t.equal(await rows(page), 1, 'this session only, signed in again')
    await screenshot(page, `account-password-changed-${mode}`)
    await assertSignedOut(t, other.page, base, 'after the password change')

    // The other browser signs in with the new password; this one ends that session with its button.
    await signIn(other.page, 'alice', NEW_PASSWORD)
    await other.page.waitForURL(`${base}/_server/account`)
    await page.goto(`${base}/_server/account`)
    t.equal(await rows(page), 2)
    await page.getByRole('button', { name: /^End session/ }).click()
    await page.waitForURL(`${base}/_server/account?done=session-revoked`)
    t.equal(await page.getByRole('status').innerText(), 'The session was ended.')
    t.equal(await rows(page), 1)
    await assertSignedOut(t, other.page, base, 'after its revoke button')

    // Once more, with "Sign out everywhere else".
    await signIn(other.page, 'alice', NEW_PASSWORD)
    await other.page.waitForURL(`${base}/_server/account`)
    await page.goto(`${base}/_server/account`)
    await page.getByRole('button', { name: 'Sign out everywhere else' }).click()
    await page.waitForURL(`${base}/_server/account?done=others-revoked&ended=1`)
    t.equal(await page.getByRole('status').innerText(), 'You were signed out everywhere else (1 other session ended).')
    await assertSignedOut(t, other.page, base, 'after sign out everywhere else')
    await other.context.close()

    // Sign out with the button: the login page, and no way back in without signing in.
    await page.getByRole('banner').getByRole('button', { name: 'Sign out' }).click()
    await page.waitForURL(`${base}/_server/login_page`)
    t.same((await context.cookies()).filter((cookie) => cookie.name === 'session_id'), [], 'the session cookie is gone')
    await page.goto(`${base}/_server/account`)
    t.match(page.url(), /\/_server\/login_page\?next=/, 'signed out')
    await context.close()
  })

  test(`the 403 page: switch account, JavaScript ${javaScriptEnabled ? 'on' : 'off'}`, { skip: browserSkip() }, async (t) => {
    const base = await startServer(t)
    const browser = await launch()
    t.teardown(() => browser.close())
    const context = await loopbackContext(browser, { javaScriptEnabled })
    const page = await context.newPage()
    await page.goto(`${base}/reports?year=2024`)
    await signIn(page, 'bob', 'bob-pass-1')
    await page.waitForURL(`${base}/reports?year=2024`)
    t.equal(await page.getByRole('heading', { level: 1 }).innerText(), 'No access', 'bob lacks the tag')
    t.match(await page.locator('main').innerText(), /Signed in as bob\.\s+You do not have access to this page\./)
    await screenshot(page, `forbidden-page-${mode}`)
    await page.getByRole('button', { name: 'Switch account' }).click()
    await page.waitForURL(`${base}/_server/login_page?next=%2Freports%3Fyear%3D2024`)
    t.equal(await page.getByRole('heading', { level: 1 }).innerText(), 'Sign in', 'signed out: the plain login page')
    await signIn(page, 'alice', 'alice-pass')
    await page.waitForURL(`${base}/reports?year=2024`)
    t.same(JSON.parse(await page.locator('body').innerText()), { reports: [], for: 'alice' }, 'back where bob was refused, as alice')

    // The GET /logout page changes nothing until its button is pressed.
    await page.goto(`${base}/_server/logout`)
    t.match(await page.locator('main').innerText(), /You are signed in as alice\./)
    await screenshot(page, `logout-page-${mode}`)
    await page.goto(`${base}/orders`)
    t.same(JSON.parse(await page.locator('body').innerText()), { orders: [], for: 'alice' }, 'still signed in')
    await page.goto(`${base}/_server/logout`)
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.waitForURL(`${base}/_server/login_page`)
    await page.goto(`${base}/orders`)
    t.match(page.url(), /\/_server\/login_page\?next=%2Forders$/, 'signed out')
    await context.close()
  })
}
