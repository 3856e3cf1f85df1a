import type { FastifyInstance } from 'fastify'
import { interceptAddHook, type AddHook } from './add-hook-interception.js'

// Fastify runs the hooks of one kind in the order they were added. Request
// hooks in registration order are what an onion wants (lower orders first);
// response hooks are not: the component that saw the request first must see
// the response last. These kinds are therefore held back while components
// register, then added in descending component order.
// D-CHAIN-01: held back and re-added, not a dispatcher per kind: real Fastify hooks, no per-request cost.
const RESPONSE_PHASE = new Set(['preSerialization', 'onSend', 'onResponse', 'onError', 'onTimeout', 'onRequestAbort'])

interface HeldHook {
  readonly hookName: string
  readonly fn: unknown
  readonly order: number
  readonly component: string
  readonly seq: number
}

/**
 * Collects the response-phase hooks that components add to one Fastify
 * instance and adds them back in onion order. Request-phase hooks and hooks
 * of encapsulated child instances pass straight through.
 */
export class HookOrdering {
  readonly #app: FastifyInstance
  readonly #held: HeldHook[] = []

  constructor (app: FastifyInstance) {
    this.#app = app
  }

  /**
   * Registers `register()`'s plugin with `app.addHook` intercepted; the
   * response-phase hooks it adds to `app` itself are held with `order`.
   */
  async capture (component: string, order: number, register: () => PromiseLike<unknown>): Promise<void> {
    const held = this.#held
    await interceptAddHook(this.#app, (hookName, fn) => {
      if (!RESPONSE_PHASE.has(hookName)) return false
      held.push({ hookName, fn, order, component, seq: held.length })
      return true
    }, register)
  }

  /**
   * Adds the held hooks: descending order; at equal order, by component name
   * (the tie rule of docs/architecture.md, D-CHAIN-02); within a component, as added.
   */
  flush (): void {
    const hooks = this.#held.splice(0).sort((a, b) =>
      b.order - a.order ||
      (a.component < b.component ? -1 : a.component > b.component ? 1 : 0) ||
      a.seq - b.seq)
    const addHook = this.#app.addHook as unknown as AddHook
    for (const hook of hooks) addHook.call(this.#app, hook.hookName, hook.fn)
  }
}
