// Issue 25, review of item 2: the account's and the admin's session lists and
// sign-outs awaited the session store's listFor and destroyAllFor with no
// limit. They have the session's callbackTimeout now: 503
// GATEHOUSE_SESSION_STORE_UNAVAILABLE, then working again once the store answers. D-SESSION-33.
import { test } from 'tap'
import { MemorySessionStore, type SessionEntry } from '@fastify-gatehouse/session'
import { AppServer } from '@fastify-gatehouse/server'
import { accountUsers, ADMIN_PASSWORD, fetchSignIn } from '../helpers/account.js'
import { hangSignal } from '../../../../test-helpers/wait.js'

class HangingListStore extends MemorySessionStore {
  hang = false
  readonly #held: Array<() => void> = []
  release (): void {
    this.hang = false
    for (const go of this.#held.splice(0)) go()
  }

  #maybeHang<T> (work: () => T): T | Promise<T> {
    if (!this.hang) return work()
    return new Promise<T>((resolve) => { this.#held.push(() => { resolve(work()) }) })
  }

  override listFor (identity: string, limit: number): SessionEntry[] { return this.#maybeHang(() => super.listFor(identity, limit)) as SessionEntry[] }
  override destroyAllFor (identity: string): number { return this.#maybeHang(() => super.destroyAllFor(identity)) as number }
}

test("a hung listFor or destroyAllFor: the account's and the admin's session endpoints answer 503 with the code, then recover", async (t) => {
  const store = new HangingListStore()
  const server = new AppServer({ logger: false, users: await accountUsers(), adminPassword: ADMIN_PASSWORD, session: { store, callbackTimeout: 0.2 } })
  t.teardown(() => server.close())
  const base = await server.serve('127.0.0.1', 0)
  const admin = await fetchSignIn(base, 'admin', ADMIN_PASSWORD)
  const alice = await fetchSignIn(base, 'alice', 'alice-pass')
  const calls: Array<[string, string, string]> = [
    ['GET', '/_server/account/sessions', alice],
    ['GET', '/_server/users/bob/sessions', admin],
    ['POST', '/_server/users/bob/signout', admin]
  ]
  const ask = async ([method, path, cookie]: [string, string, string]): Promise<{ status: number, code: string | undefined, retryAfter: string | null }> => {
    const res = await fetch(`${base}${path}`, { method, headers: { cookie, origin: base }, signal: hangSignal() })
    const body = await res.json() as { code?: string }
    return { status: res.status, code: body.code, retryAfter: res.headers.get('retry-after') }
  }
  store.hang = true
  for (const call of calls) {
    t.same(await ask(call), { status: 503, code: 'GATEHOUSE_SESSION_STORE_UNAVAILABLE', retryAfter: '5' }, `${call[0]} ${call[1]}: 503 while the store hangs`)
  }
  store.release()
  for (const call of calls) t.equal((await ask(call)).status, 200, `${call[0]} ${call[1]}: answered once the store answers`)
})
