// A store family added from outside, through the public API only: a driver
// whose user store keeps its records in a Map, built on auth's exported
// UserStoreBase and core's defineStoreDriver. It passes the users suite as
// the built-in families do (issue 26, item 4).
import { test } from 'tap'
import { Type } from '@sinclair/typebox'
import { defineStoreDriver, openStore, storeRoles } from '@fastify-gatehouse/core'
import { scryptParamsSchema, UserStoreBase, type StoredUser } from '@fastify-gatehouse/auth'
import { driverConformance } from '../../../test-helpers/conformance/drivers.js'

class MapUserStore extends UserStoreBase {
  readonly #users = new Map<string, StoredUser>()
  closed = false

  protected async find (identity: string): Promise<StoredUser | undefined> {
    return this.#users.get(identity)
  }

  protected async insert (user: StoredUser): Promise<boolean> {
    if (this.#users.has(user.identity)) return false
    this.#users.set(user.identity, user)
    return true
  }

  protected async edit (identity: string, change: (user: StoredUser) => void): Promise<boolean> {
    const user = this.#users.get(identity)
    if (user === undefined) return false
    const changed = { ...user, tags: [...user.tags] }
    change(changed)
    this.#users.set(identity, changed)
    return true
  }

  protected async remove (identity: string): Promise<boolean> {
    return this.#users.delete(identity)
  }

  protected async all (): Promise<StoredUser[]> {
    return [...this.#users.values()]
  }
}

const opened: MapUserStore[] = []
const mapDriver = defineStoreDriver({
  kind: 'map',
  schema: Type.Object({ scrypt: Type.Optional(scryptParamsSchema) }, { additionalProperties: false }),
  open: {
    users: async (section) => {
      const store = new MapUserStore(section.scrypt === undefined ? {} : { scrypt: section.scrypt })
      opened.push(store)
      return { store, close: async () => { store.closed = true } }
    }
  }
})

test('a Map-backed driver added through the public API passes the users suite', async (t) => {
  await driverConformance(t, mapDriver, { section: () => ({ scrypt: { N: 1024, r: 8, p: 1 } }) })
  t.ok(opened.length > 0 && opened.every((store) => store.closed), 'every store the suite opened was closed through the driver')
})

test('a driver offers only its roles, and checks its section with its own schema', async (t) => {
  t.same(storeRoles(mapDriver), ['users'])
  t.ok(Object.isFrozen(mapDriver) && Object.isFrozen(mapDriver.open))
  await t.rejects(openStore(mapDriver, 'apiKeys', {}), { code: 'GATEHOUSE_CORE_INVALID_OPTIONS', message: 'store: the map driver offers no apiKeys store (it offers users)' })
  await t.rejects(openStore(mapDriver, 'users', { scrypt: { N: 1024, r: 8, p: 1, q: 1 } }, 'server_app.store'), { code: 'GATEHOUSE_CORE_INVALID_OPTIONS', message: /^server_app\.store\.scrypt\.q: unknown option/ })
  await t.rejects(openStore(mapDriver, 'users', 'a folder'), { code: 'GATEHOUSE_CORE_INVALID_OPTIONS', message: /^store: expected object/ })
})

test('defineStoreDriver refuses a driver without a kind or a role', async (t) => {
  const schema = Type.Object({})
  t.throws(() => defineStoreDriver({ kind: 'Map Store', schema, open: { users: mapDriver.open.users! } }), { code: 'GATEHOUSE_CORE_INVALID_COMPONENT', message: /store driver kind "Map Store"/ })
  t.throws(() => defineStoreDriver({ kind: 'empty', schema, open: {} }), { code: 'GATEHOUSE_CORE_INVALID_COMPONENT', message: /store driver empty: offers no store role/ })
  t.throws(() => defineStoreDriver({ kind: 'odd', schema, open: { users: 'users.json' as never } }), { code: 'GATEHOUSE_CORE_INVALID_COMPONENT', message: /store driver odd: open\.users is not a function/ })
})
