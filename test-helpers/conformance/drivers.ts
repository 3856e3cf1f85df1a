import type { Test } from 'tap'
import type { TSchema } from '@sinclair/typebox'
import { openStore, storeRoles, type StoreDriver, type StoreRole, type StoreRoles } from '@fastify-gatehouse/core'
import type { TestClock } from '../clock.js'
import { apiKeyStoreConformance } from './api-keys.js'
import { lockoutStoreConformance } from './lockout.js'
import { sessionStoreConformance } from './sessions.js'
import { userStoreConformance } from './users.js'

type Suite<S> = (t: Test, make: () => Promise<S>, clock?: TestClock) => Promise<void>

/**
 * The conformance suite of each store role. A role a driver offers with no
 * suite here fails the run: a new role (audit events, rate-limit counters…)
 * comes with its suite, which every driver offering it then passes.
 */
export const ROLE_SUITES: { readonly [R in StoreRole]?: Suite<StoreRoles[R]> } = {
  users: userStoreConformance,
  apiKeys: apiKeyStoreConformance,
  sessions: sessionStoreConformance,
  lockout: lockoutStoreConformance
}

export interface DriverRun {
  /**
   * The `store:` section of one open. Called once per store the suites
   * make, and each must be a fresh, empty store: a new folder, a new key
   * prefix, truncated tables.
   */
  section: (role: StoreRole) => unknown
  /** The roles to run (default: every role the driver offers). */
  roles?: readonly StoreRole[]
  /** The clock of the stores the driver opens (default: the real one). */
  clock?: TestClock
}

/**
 * Runs the conformance suite of every role `driver` offers (or `run.roles`)
 * against stores the driver opens through core's `openStore`: the section
 * checked by the driver's own schema, the store closed by what the driver
 * returned with it.
 */
export async function driverConformance<Schema extends TSchema> (t: Test, driver: StoreDriver<Schema>, run: DriverRun): Promise<void> {
  for (const role of run.roles ?? storeRoles(driver)) {
    const suite = ROLE_SUITES[role] as Suite<unknown> | undefined
    await t.test(`the ${driver.kind} driver's ${role} store`, async (t) => {
      if (suite === undefined) return t.fail(`no conformance suite for the ${role} role`)
      const closes: Array<() => Promise<void>> = []
      t.teardown(async () => { for (const close of closes) await close() })
      await suite(t, async () => {
        const opened = await openStore(driver, role, await run.section(role))
        closes.push(opened.close)
        return opened.store
      }, run.clock)
    })
  }
}
