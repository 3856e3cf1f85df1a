import Fastify, { type FastifyInstance } from 'fastify'
import { middlewareChain, type Recipe } from '@fastify-gatehouse/core'
import { errorsPlugin } from '@fastify-gatehouse/errors'
import { wellknownPlugin, type WellKnownOptions } from '@fastify-gatehouse/wellknown'

export const SECURITY_TXT = 'Contact: mailto:security@example.com\nExpires: 2030-01-01T00:00:00.000Z\nPreferred-Languages: en\n'

/** What the application saw: the URLs its handlers ran for. */
export interface Built { app: FastifyInstance, seen: string[] }

/**
 * errors + wellknown (+ whatever `extra` adds) through the chain, and an
 * application that declares dot routes of its own and records every call.
 */
export async function build (wellknown: WellKnownOptions = {}, extra: Recipe = {}): Promise<Built> {
  const app = Fastify()
  const seen: string[] = []
  await middlewareChain(app, { ...extra, middleware: { ...extra.middleware, wellknown: wellknown as Record<string, unknown> } }, { components: [errorsPlugin, wellknownPlugin] })
  const record = async (request: { url: string }) => { seen.push(request.url); return { app: true } }
  app.get('/', record)
  app.get('/.env', record)
  app.get('/.git/config', record)
  app.get('/.hidden', { authRule: 'admin' }, record)
  app.get('/.well-known/app-owned', record)
  app.get('/static/.env', record)
  app.get('/a.env', record)
  await app.ready()
  return { app, seen }
}
