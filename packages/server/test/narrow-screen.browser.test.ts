import { test, type Test } from 'tap'
import { mkdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { FastifyRequest } from 'fastify'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { MemoryUserStore } from '@fastify-gatehouse/auth'
import { AppServer, RoutedApplication, route } from '@fastify-gatehouse/server'
import { fakeDateNow } from '../../../test-helpers/clock.js'
import { axeViolations } from './helpers/axe.js'
import { browserSkip, launch, loopbackContext } from './helpers/browser.js'

// Every page Gatehouse renders, on a phone: 375 px wide (an iPhone SE, the
// narrowest common screen), with the longest content each page can show.
const PHONE = { width: 375, height: 667 }
const ARTIFACTS = fileURLToPath(new URL('../../../test-artifacts/', import.meta.url))

// An identity with no space to break at (the login takes up to 200 characters).
const LONG_IDENTITY = 'maximiliane.van-der-oppenheimer-westerholt@finance-department.example.com'
// Agents as a phone, a desktop and a client the label does not know (its first token, cut to 60 characters).
const AGENTS = [
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
  'AcmeCorporateSingleSignOnDesktopAgentForWindowsAndLinuxWorkstations/12.4.1 (build 7781)'
]
// The address a session lists: an IPv6 address as long as they come, through a trusted proxy.
const LONG_ADDRESS = '2001:db8:85a3:1234:5678:8a2e:370:7334'

class Shop extends RoutedApplication {
  @route('/reports', { authRule: 'finance' })
  async reports (request: FastifyRequest) { return { for: request.scope.auth?.identity } }
}

async function startServer (t: Test): Promise<string> {
  const users = new MemoryUserStore({ scrypt: { N: 1024, r: 8, p: 1 } })
  await users.add(LONG_IDENTITY, { password: 'long-pass-1', tags: [] })
  const server = new AppServer({
    logger: false,
    primary: new Shop(),
    users,
    login: true,
    trustProxy: true,
    // Never contacted: its button is on the login page, and a callback without a sign-in in progress is refused (the sign-in-failed page).
    externalUrl: 'http://127.0.0.1',
    serverApp: { oidc: { corp: { issuer: 'https://idp.example', clientId: 'c', clientSecret: 's', label: 'Corporate Single Sign-On' } } }
  })
  t.teardown(() => server.close())
  return await server.serve('127.0.0.1', 0)
}

/** What a page looks like at its width: any horizontal overflow, and each control that cannot be reached or pressed. */
interface Fit {
  readonly scrollWidth: number
  readonly innerWidth: number
  /** Elements that scroll sideways inside the page (content hidden behind a scrollbar). */
  readonly scrollers: string[]
  /** Buttons, links and fields outside the viewport's width, or covered at their centre. */
  readonly unreachable: string[]
  readonly controls: number
}

// Runs in the page, given as source: the test's compiler would wrap a function's
// inner helpers in its own (missing there) helpers. Browser code, plain JavaScript.
const FIT = `(() => {
  const describe = (el) => el.tagName.toLowerCase() + ' "' + (el.textContent || el.value || '').trim().replace(/\\s+/g, ' ').slice(0, 50) + '"'
  const scrollers = []
  for (const el of document.body.querySelectorAll('*')) {
    // Visually hidden (1 px, clipped: the caption, the header row on a phone): for screen readers only.
    if (el.clientWidth <= 1) continue
    const overflow = getComputedStyle(el).overflowX
    if (overflow !== 'visible' && overflow !== 'clip' && el.scrollWidth > el.clientWidth) scrollers.push(describe(el))
  }
  const unreachable = []
  const controls = Array.from(document.querySelectorAll('button, a[href], input:not([type="hidden"])'))
  for (const el of controls) {
    // Scrolled to vertically only: a control off to the side must stay there to be caught.
    scrollTo(0, el.getBoundingClientRect().top + scrollY - innerHeight / 2)
    const box = el.getBoundingClientRect()
    const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2)
    if (box.left < 0 || box.right > innerWidth || hit === null || !el.contains(hit)) unreachable.push(describe(el))
  }
  scrollTo(0, 0)
  return { scrollWidth: document.documentElement.scrollWidth, innerWidth, scrollers, unreachable, controls: controls.length }
})()`

async function fit (page: Page): Promise<Fit> {
  return await page.evaluate(FIT) as Fit
}

async function signIn (page: Page, base: string, next: string): Promise<void> {
  await page.goto(`${base}/_server/login_page?next=${encodeURIComponent(next)}`)
  await page.getByLabel('Identity').fill(LONG_IDENTITY)
  await page.getByLabel('Password', { exact: true }).fill('long-pass-1')
  await page.getByRole('button', { name: 'Sign in with Password' }).click()
  await page.waitForURL((url) => !url.pathname.endsWith('/login_page') && !url.pathname.endsWith('/login'))
}

/** A browser of its own (cookie jar, agent, address) signed in as the long identity: one more row in the sessions table. */
async function otherSession (browser: Browser, base: string, userAgent: string, address: string): Promise<BrowserContext> {
  const context = await loopbackContext(browser, { userAgent, extraHTTPHeaders: { 'x-forwarded-for': address } })
  await signIn(await context.newPage(), base, '/_server/account')
  return context
}

for (const javaScriptEnabled of [true, false]) {
  const mode = javaScriptEnabled ? 'js' : 'nojs'
  test(`every page at 375 px: no horizontal overflow, every control in sight and pressable, JavaScript ${javaScriptEnabled ? 'on' : 'off'}`, { skip: browserSkip() }, async (t) => {
    // The server runs in this process: moving its clock makes a sign-in old without waiting.
    const clock = fakeDateNow(t)
    const base = await startServer(t)
    const browser = await launch()
    t.teardown(() => browser.close())
    // axe is injected as an inline script: the context bypasses the CSP for it (D-TOOLING-22); it needs JavaScript.
    const context = await loopbackContext(browser, {
      viewport: PHONE,
      javaScriptEnabled,
      bypassCSP: javaScriptEnabled,
      userAgent: AGENTS[0],
      extraHTTPHeaders: { 'x-forwarded-for': LONG_ADDRESS }
    })
    const page = await context.newPage()
    mkdirSync(ARTIFACTS, { recursive: true })
    const seen: string[] = []
    const check = async (name: string, url: string | null, ready: (page: Page) => Promise<unknown>): Promise<void> => {
      if (url !== null) await page.goto(`${base}${url}`)
      await ready(page)
      const measured = await fit(page)
      t.ok(measured.scrollWidth <= measured.innerWidth, `${name}: the page is ${measured.scrollWidth} px wide in a ${measured.innerWidth} px viewport`)
      t.same(measured.scrollers, [], `${name}: nothing scrolls sideways inside the page`)
      t.same(measured.unreachable, [], `${name}: all ${measured.controls} controls are within the width and pressable`)
      if (javaScriptEnabled) t.same(await axeViolations(page), [], `${name}: no WCAG 2.1 A/AA violation at 375 px`)
      await page.screenshot({ path: `${ARTIFACTS}narrow-${name}-${mode}.png`, fullPage: true })
      seen.push(name)
    }
    const heading = (text: string) => async (p: Page) => await p.getByRole('heading', { level: 1, name: text }).waitFor()

    await check('login-page', '/_server/login_page?next=/reports', heading('Sign in'))
    await check('login-page-error', '/_server/login_page?error=locked&retry=300', heading('Sign in'))
    // A failed sign-in: with JavaScript the error shows in place; without, the server answers the page again.
    await page.getByLabel('Identity').fill(LONG_IDENTITY)
    await page.getByLabel('Password', { exact: true }).fill('wrong-password')
    await page.getByRole('button', { name: 'Sign in with Password' }).click()
    await check('login-page-failed', null, async (p) => await p.getByRole('alert').filter({ hasText: 'Invalid identity or password.' }).waitFor())
    await check('sign-in-failed-page', '/_server/auth/oidc:corp/callback?state=forged&code=x', heading('Sign-in failed'))
    await check('logout-page-signed-out', '/_server/logout', heading('Sign out'))

    const others = [
      await otherSession(browser, base, AGENTS[1], '192.0.2.254'),
      await otherSession(browser, base, AGENTS[2], LONG_ADDRESS)
    ]
    await signIn(page, base, '/_server/account')
    await check('account-page', '/_server/account', async (p) => await p.getByRole('button', { name: 'Sign out everywhere else' }).waitFor())
    t.equal(await page.locator('tbody tr').count(), 3, 'three sessions listed')
    t.equal(await page.getByRole('button', { name: /^End session\b/ }).count(), 2, 'an End session button on each other row')
    await check('account-page-message', '/_server/account?error=weak&rule=contains-identity', async (p) => await p.getByRole('alert').filter({ hasText: 'identity' }).waitFor())
    await check('login-page-signed-in', '/_server/login_page?next=/reports', heading('Sign in'))
    await check('sign-in-failed-page-signed-in', '/_server/auth/oidc:corp/callback?state=forged&code=x', heading('Sign-in failed'))
    await check('logout-page', '/_server/logout', async (p) => await p.getByRole('button', { name: 'Sign out' }).waitFor())
    await check('forbidden-page', '/reports', heading('No access'))

    // The buttons of the sessions table work at this width.
    await page.goto(`${base}/_server/account`)
    await page.getByRole('button', { name: /^End session\W+Firefox 133 on Linux/ }).click()
    await page.waitForURL(`${base}/_server/account?done=session-revoked`)
    t.equal(await page.locator('tbody tr').count(), 2, 'the session was ended with its button')

    clock.advance(601_000)
    await check('account-page-not-fresh', '/_server/account', async (p) => await p.getByRole('heading', { name: 'Confirm it\'s you' }).waitFor())
    await check('login-page-reauth', '/_server/login_page?next=%2F_server%2Faccount&reauth=1', heading('Confirm it\'s you'))
    t.equal(seen.length, 13, 'every page was checked')
    for (const other of others) await other.close()
    await context.close()
  })
}
