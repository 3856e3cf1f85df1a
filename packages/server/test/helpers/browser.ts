import { existsSync } from 'node:fs'
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions } from 'playwright-core'
import { HANG_CEILING_MS } from '../../../../test-helpers/wait.js'

export const CHROMIUM = process.env.GATEHOUSE_CHROMIUM ?? '/usr/bin/chromium'
const required = process.env.GATEHOUSE_REQUIRE_BROWSER === '1'

/**
 * false when Chromium is here; otherwise the reason to skip (shown by tap).
 * In CI (GATEHOUSE_REQUIRE_BROWSER=1) a missing Chromium is a failure, not a skip.
 */
export function browserSkip (): false | string {
  if (existsSync(CHROMIUM)) return false
  if (required) return false
  return `Chromium not found at ${CHROMIUM}: browser tests skipped (apt-get install chromium; CI requires it)`
}

export async function launch (): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`GATEHOUSE_REQUIRE_BROWSER=1 but Chromium is missing at ${CHROMIUM}`)
  return chromium.launch({
    executablePath: CHROMIUM,
    timeout: HANG_CEILING_MS,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking']
  })
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]'])

/**
 * A browser context that refuses every request leaving this machine. Its
 * waits (playwright's default: 30 s) last up to the hang ceiling: a page
 * can take longer than that to load on a busy machine.
 */
export async function loopbackContext (browser: Browser, options: BrowserContextOptions = {}): Promise<BrowserContext> {
  const context = await browser.newContext(options)
  context.setDefaultTimeout(HANG_CEILING_MS)
  context.setDefaultNavigationTimeout(HANG_CEILING_MS)
  await context.route('**/*', async (route) => {
    const { hostname } = new URL(route.request().url())
    if (LOOPBACK.has(hostname)) await route.continue()
    else await route.abort('blockedbyclient')
  })
  return context
}
