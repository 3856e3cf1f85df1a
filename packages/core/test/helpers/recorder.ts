import type { FastifyInstance } from 'fastify'
import { defineComponent, type Component } from '@fastify-gatehouse/core'

export const REQUEST_HOOKS = ['onRequest', 'preParsing', 'preValidation', 'preHandler'] as const
export const RESPONSE_HOOKS = ['preSerialization', 'onSend', 'onResponse'] as const

/**
 * Components that append `<name>:<hook>` to `trace` from every hook kind,
 * defined afresh so tests stay independent.
 */
export function recordingComponents (specs: ReadonlyArray<{ name: string, order: number }>, trace: string[]): Component[] {
  return specs.map(({ name, order }) => defineComponent({
    name,
    order,
    default: true,
    plugin: async (app: FastifyInstance) => {
      for (const hook of REQUEST_HOOKS) {
        app.addHook(hook, async () => { trace.push(`${name}:${hook}`) })
      }
      app.addHook('preSerialization', async (_req, _reply, payload) => { trace.push(`${name}:preSerialization`); return payload })
      app.addHook('onSend', async (_req, _reply, payload) => { trace.push(`${name}:onSend`); return payload })
      app.addHook('onResponse', async () => { trace.push(`${name}:onResponse`) })
      app.addHook('onError', async () => { trace.push(`${name}:onError`) })
    }
  }))
}

/** The trace entries of one hook kind, in the order observed. */
export function of (trace: readonly string[], hook: string): string[] {
  return trace.filter((entry) => entry.endsWith(`:${hook}`)).map((entry) => entry.split(':')[0] as string)
}
