import Fastify, { type FastifyInstance } from 'fastify'
import { middlewareChain } from '@fastify-gatehouse/core'
import { errorsPlugin } from '@fastify-gatehouse/errors'
import { compressionPlugin, type CompressionOptions } from '@fastify-gatehouse/compression'

/** Text that compresses well, of exactly `bytes` bytes (ASCII). */
export function text (bytes: number): string {
  const unit = 'gatehouse compresses repeated text. '
  return unit.repeat(Math.ceil(bytes / unit.length)).slice(0, bytes)
}

/** Bytes that do not compress: a deterministic xorshift sequence over 0–255. */
export function noise (bytes: number): Buffer {
  const out = Buffer.alloc(bytes)
  let x = 0x2545f491
  for (let i = 0; i < bytes; i++) {
    x ^= x << 13; x ^= x >>> 17; x ^= x << 5
    out[i] = x & 0xff
  }
  return out
}

/** An app with errors and compression through the chain, not yet ready: routes can still be added. */
export async function chainApp (options: CompressionOptions | true = true): Promise<FastifyInstance> {
  const app = Fastify()
  await middlewareChain(app, { middleware: { compression: options as Record<string, unknown> | true } }, { components: [errorsPlugin, compressionPlugin] })
  return app
}

/**
 * An app with errors and compression through the chain. `GET /text?n=` sends
 * n bytes of text/plain; `/json?n=` a JSON document of about n bytes.
 */
export async function build (options: CompressionOptions | true = true, routes: (app: FastifyInstance) => void = () => {}): Promise<FastifyInstance> {
  const app = await chainApp(options)
  app.get<{ Querystring: { n?: string } }>('/text', async (request, reply) => reply.type('text/plain').send(text(Number(request.query.n ?? 2000))))
  app.get<{ Querystring: { n?: string } }>('/json', async (request) => ({ data: text(Number(request.query.n ?? 2000)) }))
  routes(app)
  await app.ready()
  return app
}
