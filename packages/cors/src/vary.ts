import type { FastifyReply } from 'fastify'

/** Adds `field` to the reply's Vary unless it is there already (or Vary is `*`). */
export function addVary (reply: FastifyReply, field: string): void {
  const existing = reply.getHeader('vary')
  if (existing === undefined || existing === '') {
    reply.header('vary', field)
    return
  }
  const value = Array.isArray(existing) ? existing.join(', ') : String(existing)
  const wanted = field.toLowerCase()
  for (const name of value.split(',')) {
    const token = name.trim().toLowerCase()
    if (token === wanted || token === '*') return
  }
  reply.header('vary', `${value}, ${field}`)
}
