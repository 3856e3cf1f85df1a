import type { FastifyReply, FastifyRequest } from 'fastify'
import fastifyEtag from '@fastify/etag'
import { GATEHOUSE_CACHE_ETAG_UNSUPPORTED } from './errors.js'

type OnSend = (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err?: Error | null, payload?: unknown) => void) => void

/** The part of a Fastify instance @fastify/etag's plugin function touches. */
interface HookCollector {
  addHook: (name: string, fn: OnSend) => HookCollector
}
type EtagPlugin = (app: HookCollector, opts: object) => Promise<void> | void

/** How content ETags are made: the hash and whether the tag is weak. */
export interface ContentEtagOptions {
  /** `'fnv1a'` or a node:crypto hash name (checked by resolveCacheOptions). */
  readonly algorithm: string
  readonly weak: boolean
}

// @fastify/etag's own FNV-1a, passed as `hashFn`: its `algorithm: 'fnv1a'` is deprecated (FSTETAGDEP001).
const { fnv1a } = fastifyEtag as unknown as { fnv1a: (payload: string | Buffer) => string }

const ignore = (): void => {}

/**
 * The header-setting half of @fastify/etag: its onSend hook, built once with
 * `replyWith304: false`, so that it only sets `ETag` (the body's SHA-1 by
 * default, or the configured hash; `W/` when weak) and this package makes
 * the conditional decision (lists, `*`, weak comparison, GET/HEAD only),
 * which @fastify/etag does not. Called only for
 * the responses the cache component chooses, instead of every response.
 * D-CACHE-05: its hook, called by ours; registered as a plugin it would tag every response.
 *
 * `plugin` is @fastify/etag's plugin function (another one only in tests).
 * D-CACHE-07: an argument, so the no-hook path is tested without mocking modules.
 */
export async function contentEtagSetter (plugin: EtagPlugin = fastifyEtag as unknown as EtagPlugin, options: ContentEtagOptions = { algorithm: 'sha1', weak: false }): Promise<(request: FastifyRequest, reply: FastifyReply, payload: string | Buffer) => void> {
  let hook: OnSend | undefined
  const collector: HookCollector = {
    addHook (name, fn) {
      if (name === 'onSend') hook = fn
      return collector
    }
  }
  // D-CACHE-08: the peer's own options, so its tags are what the peer would send.
  const hashing = options.algorithm === 'fnv1a' ? { hashFn: fnv1a } : { algorithm: options.algorithm }
  await plugin(collector, { replyWith304: false, weak: options.weak, ...hashing })
  if (hook === undefined) throw new GATEHOUSE_CACHE_ETAG_UNSUPPORTED('@fastify/etag added no onSend hook; this version is not supported by @fastify-gatehouse/cache')
  const setEtag = hook
  return function contentEtag (request, reply, payload) {
    setEtag(request, reply, payload, ignore)
  }
}
