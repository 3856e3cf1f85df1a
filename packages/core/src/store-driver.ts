import type { Static, TSchema } from '@sinclair/typebox'
import { GATEHOUSE_CORE_INVALID_COMPONENT, GATEHOUSE_CORE_INVALID_OPTIONS } from './errors.js'
import { validateOptions } from './validate.js'

/**
 * The store of each role, by role name. Empty here: the package that
 * declares a store's interface adds its role by declaration merging (auth:
 * `users`, `apiKeys`, `lockout`; session: `sessions`), so that a role added
 * later (audit events, rate-limit counters…) needs no change to core and a
 * driver's opener returns the interface the role names. D-STORES-04.
 */
export interface StoreRoles {}

/** A role's name: `users`, `apiKeys`, `sessions`, `lockout`, and what packages add. */
export type StoreRole = keyof StoreRoles & string

/** A store a driver opened, and what releases what it holds (timers, connections). */
export interface OpenedStore<S> {
  readonly store: S
  /** Closes what the driver opened for this store; the store is not used after. */
  close: () => Promise<void>
}

/** How a driver opens one role's store from its checked `store:` section. */
export type StoreOpener<Section, S> = (section: Section) => Promise<OpenedStore<S>>

/** The openers of the roles a driver offers; a role it does not offer is absent. */
export type StoreOpeners<Section> = { readonly [R in StoreRole]?: StoreOpener<Section, StoreRoles[R]> }

/**
 * A family of stores (memory, files, Redis, PostgreSQL…): its `kind` (the
 * name a config file's `store:` section gives it), the TypeBox schema of
 * that section (camelCase, as code passes it; a config file's snake_case
 * keys are mapped by the schema, never by hand), and an opener per role it
 * offers. D-STORES-04.
 */
export interface StoreDriver<Schema extends TSchema = TSchema> {
  readonly kind: string
  readonly schema: Schema
  readonly open: StoreOpeners<Static<Schema>>
}

const KIND = /^[a-z][a-z0-9-]{0,39}$/

/** Checks and freezes a driver: its kind is a short lower-case name, and it offers at least one role. */
export function defineStoreDriver<Schema extends TSchema> (driver: StoreDriver<Schema>): StoreDriver<Schema> {
  if (typeof driver.kind !== 'string' || !KIND.test(driver.kind)) {
    throw new GATEHOUSE_CORE_INVALID_COMPONENT(`store driver kind ${JSON.stringify(driver.kind)}: expected lower-case letters, digits and -, at most 40`)
  }
  const roles = Object.keys(driver.open)
  if (roles.length === 0) throw new GATEHOUSE_CORE_INVALID_COMPONENT(`store driver ${driver.kind}: offers no store role`)
  for (const role of roles) {
    if (typeof (driver.open as Record<string, unknown>)[role] !== 'function') {
      throw new GATEHOUSE_CORE_INVALID_COMPONENT(`store driver ${driver.kind}: open.${role} is not a function`)
    }
  }
  return Object.freeze({ kind: driver.kind, schema: driver.schema, open: Object.freeze({ ...driver.open }) })
}

/** The roles `driver` offers, in the order it declares them. */
export function storeRoles<Schema extends TSchema> (driver: StoreDriver<Schema>): StoreRole[] {
  return Object.keys(driver.open) as StoreRole[]
}

/**
 * Opens `role`'s store with `driver`: checks `section` against the
 * driver's own schema first (`GATEHOUSE_CORE_INVALID_OPTIONS` naming the key
 * under `label`), and refuses a role the driver does not offer with the
 * same code (`store: the memory driver offers no audit store`).
 */
export async function openStore<Schema extends TSchema, R extends StoreRole> (
  driver: StoreDriver<Schema>,
  role: R,
  section: unknown,
  label = 'store'
): Promise<OpenedStore<StoreRoles[R]>> {
  const opener: StoreOpener<Static<Schema>, StoreRoles[R]> | undefined = driver.open[role]
  if (opener === undefined) {
    throw new GATEHOUSE_CORE_INVALID_OPTIONS(label, `the ${driver.kind} driver offers no ${role} store (it offers ${storeRoles(driver).join(', ')})`)
  }
  validateOptions(driver.schema, section, label)
  return await opener(section as Static<Schema>)
}
