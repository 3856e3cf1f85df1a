import { MemoryUserStore, type UserStore, type VerifiedUser } from '@fastify-gatehouse/auth'
import { eventually, HANG_CEILING_MS } from '../../../../test-helpers/wait.js'

const FAST = { N: 1024, r: 8, p: 1 }

/**
 * A user store whose password checks wait at a gate, so that concurrent
 * logins really overlap whatever the machine's speed: every check that
 * starts is counted, and none finishes until the test opens the gate.
 */
export class GatedUsers implements UserStore {
  readonly inner = new MemoryUserStore({ scrypt: FAST })
  /** Password checks started. */
  checks = 0
  #open = false
  readonly #waiting: Array<() => void> = []

  static async with (users: Record<string, string>): Promise<GatedUsers> {
    const store = new GatedUsers()
    for (const [identity, password] of Object.entries(users)) await store.inner.add(identity, { password, tags: 'member' })
    return store
  }

  /** Lets every waiting and later check through. */
  open (): void {
    this.#open = true
    for (const release of this.#waiting.splice(0)) release()
  }

  get waiting (): number {
    return this.#waiting.length
  }

  async verify (identity: string, password: string): Promise<VerifiedUser | null> {
    this.checks++
    if (!this.#open) await new Promise<void>((resolve) => this.#waiting.push(resolve))
    return await this.inner.verify(identity, password)
  }

  get = (identity: string) => this.inner.get(identity)
  standing = (identity: string) => this.inner.standing(identity)
  add = (identity: string, user: Parameters<UserStore['add']>[1]) => this.inner.add(identity, user)
  setPassword = (identity: string, password: string) => this.inner.setPassword(identity, password)
  setTags = (identity: string, tags: string | readonly string[]) => this.inner.setTags(identity, tags)
  setEnabled = (identity: string, enabled: boolean) => this.inner.setEnabled(identity, enabled)
  delete = (identity: string) => this.inner.delete(identity)
  list = () => this.inner.list()
}

/** Polls `condition` until it holds, up to the hang ceiling (the machine may be busy); resolves whether it held. */
export async function until (condition: () => boolean, ceilingMs = HANG_CEILING_MS): Promise<boolean> {
  return await eventually(condition, { ceilingMs })
}
