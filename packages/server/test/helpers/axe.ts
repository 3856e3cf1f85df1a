import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { Page } from 'playwright-core'
import type { AxeResults, RunOptions } from 'axe-core'

// axe-core's browser build, read once. It is put into the page as an inline
// script: the pages' CSP forbids inline scripts, so the contexts that run
// this check are made with `bypassCSP: true` (a test-only switch of the
// browser; the CSP itself is asserted by the pages' own tests). D-TOOLING-22.
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

/** The WCAG 2.1 A and AA rules, by axe's tags. */
export const WCAG_21_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']

/** One violation, as short as a failing assertion needs: the rule, why, and where. */
export interface Violation {
  readonly id: string
  readonly impact: string | null
  readonly help: string
  readonly targets: readonly string[]
}

/**
 * Runs axe-core on the page's current document with the WCAG 2.1 A/AA
 * rules; resolves with the violations (none: an empty list). The page's
 * context must have JavaScript on and `bypassCSP: true`.
 */
export async function axeViolations (page: Page): Promise<Violation[]> {
  await page.addScriptTag({ content: AXE_SOURCE })
  const options: RunOptions = { runOnly: { type: 'tag', values: WCAG_21_AA }, resultTypes: ['violations'] }
  const results = await page.evaluate(async (runOptions) => {
    const axe = (globalThis as unknown as { axe: { run: (context: unknown, options: unknown) => Promise<AxeResults> } }).axe
    return await axe.run((globalThis as unknown as { document: unknown }).document, runOptions)
  }, options)
  return results.violations.map((violation) => ({
    id: violation.id,
    impact: violation.impact ?? null,
    help: violation.help,
    targets: violation.nodes.map((node) => node.target.join(' '))
  }))
}
