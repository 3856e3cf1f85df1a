import { test } from 'tap'
import { mkdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { FastifyRequest } from 'fastify'
import { AppServer, RoutedApplication, route } from '@fastify-gatehouse/server'
import { browserSkip, launch, loopbackContext } from './helpers/browser.js'

const ARTIFACTS = fileURLToPath(new URL('../../../test-artifacts/', import.meta.url))

class Shop extends RoutedApplication {
  @route('/orders', { authRule: 'ops' })
  async orders (request: FastifyRequest) { return { orders: [], for: request.scope.auth?.identity } }
}

test('the login page in a real browser', { skip: browserSkip() }, async (t) => {
  const server = new AppServer({ logger: false, primary: new Shop(), users: { alice: { password: 'alice-pass', tags: 'ops' } }, login: true })
  // Closed even when the browser cannot start: a listening server would hold the file open until tap's timeout.
  t.teardown(() => server.close())
  const base = await server.serve('127.0.0.1', 0)
  const browser = await launch()
  t.teardown(() => browser.close())

  await t.test('with JavaScript: sent to the page, sign in, land on next signed in', async (t) => {
    const context = await loopbackContext(browser)
    const page = await context.newPage()
    await page.goto(`${base}/orders?page=2`)
    t.match(page.url(), /\/_server\/login_page\?next=%2Forders%3Fpage%3D2$/, 'the protected page sent us to sign in')
    mkdirSync(ARTIFACTS, { recursive: true })
    await page.screenshot({ path: `${ARTIFACTS}login-page.png` })
    await page.getByLabel('Identity').fill('alice')
    await page.getByLabel('Password').fill('alice-pass')
    await page.getByRole('button', { name: 'Sign in with Password' }).click()
    await page.waitForURL(`${base}/orders?page=2`)
    t.same(JSON.parse(await page.locator('body').innerText()), { orders: [], for: 'alice' })
    const [cookie] = await context.cookies()
    t.match(cookie, { name: 'session_id', httpOnly: true, sameSite: 'Lax', secure: false })
    await context.close()
  })

  await t.test('a wrong password shows the error in place', async (t) => {
    const context = await loopbackContext(browser)
    const page = await context.newPage()
    await page.goto(`${base}/_server/login_page?next=/orders`)
    await page.getByLabel('Identity').fill('alice')
    await page.getByLabel('Password').fill('wrong')
    await page.getByRole('button', { name: 'Sign in with Password' }).click()
    const alert = page.getByRole('alert')
    await alert.filter({ hasText: 'Invalid identity or password.' }).waitFor()
    t.equal(await alert.innerText(), 'Invalid identity or password.')
    t.ok(await alert.evaluate((el) => el === (globalThis as unknown as { document: { activeElement: unknown } }).document.activeElement), 'the error takes the focus')
    t.match(page.url(), /login_page/, 'still on the page')
    t.same(await context.cookies(), [], 'no session')
    await context.close()
  })

  await t.test('without JavaScript: the form posts, failures come back, success lands on next', async (t) => {
    const context = await loopbackContext(browser, { javaScriptEnabled: false })
    const page = await context.newPage()
    await page.goto(`${base}/_server/login_page?next=/orders`)
    await page.getByLabel('Identity').fill('alice')
    await page.getByLabel('Password').fill('wrong-guess')
    const answer = page.waitForResponse((response) => response.url() === `${base}/_server/login`)
    await page.getByRole('button', { name: 'Sign in with Password' }).click()
    t.equal((await answer).status(), 401, 'the server answers the page itself')
    await page.getByRole('alert').filter({ hasText: 'Invalid identity or password.' }).waitFor()
    t.equal(await page.getByRole('alert').innerText(), 'Invalid identity or password.')
    // D-SERVER-54: what was typed as the identity is still there; the password is not.
    t.equal(await page.getByLabel('Identity').inputValue(), 'alice', 'the identity is kept')
    t.equal(await page.getByLabel('Password').inputValue(), '', 'the password is not')
    t.notMatch(await page.content(), 'wrong-guess', 'nor anywhere in the page')
    t.ok(await page.getByRole('alert').evaluate((el) => el === (globalThis as unknown as { document: { activeElement: unknown } }).document.activeElement), 'the error takes the focus, as with JavaScript')
    await page.screenshot({ path: `${ARTIFACTS}login-page-failed-nojs.png` })
    await page.getByLabel('Password').fill('alice-pass')
    await page.getByRole('button', { name: 'Sign in with Password' }).click()
    await page.waitForURL(`${base}/orders`)
    t.same(JSON.parse(await page.locator('body').innerText()), { orders: [], for: 'alice' })
    await context.close()
  })
})
