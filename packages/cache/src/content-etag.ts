import type { FastifyReply, FastifyRequest } from 'fastify'
import fastifyEtag from '@fastify/etag'

type OnSend = (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err?: Error | null, payload?: unknown) => void) => void

const ignore = (): void => {}

/**
 * The header-setting half of @fastify/etag: its onSend hook, built once with
 * `replyWith304: false`, so that it only sets `ETag` (a strong SHA-1 of the
 * body) and this package makes the conditional decision (lists, `*`, weak
 * comparison, GET/HEAD only), which @fastify/etag does not. Called only for
 * the responses the cache component chooses, instead of every response.
 * D-CACHE-05: its hook, called by ours; registered as a plugin it would tag every response.
 */
export async function contentEtagSetter (): Promise<(request: FastifyRequest, reply: FastifyReply, payload: string | Buffer) => void> {
  let hook: OnSend | undefined
  const collector = {
    addHook (name: string, fn: OnSend) {
      if (name === 'onSend') hook = fn
      return collector
    }
  }
  await (fastifyEtag as unknown as (app: typeof collector, opts: object) => Promise<void>)(collector, { replyWith304: false })
  if (hook === undefined) throw new TypeError('@fastify/etag did not add an onSend hook; this version is not supported by @fastify-gatehouse/cache')
  const setEtag = hook
  return function contentEtag (request, reply, payload) {
    setEtag(request, reply, payload, ignore)
  }
}
