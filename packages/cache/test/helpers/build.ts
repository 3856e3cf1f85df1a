import { createReadStream, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync, type ReadStream } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Fastify, { type FastifyInstance } from 'fastify'
import { middlewareChain } from '@fastify-gatehouse/core'
import { errorsPlugin } from '@fastify-gatehouse/errors'
import { cachePlugin, type CacheOptions } from '@fastify-gatehouse/cache'

/** 2021-05-04T03:02:01Z, a whole second so Last-Modified round-trips. */
export const MTIME = new Date(Date.UTC(2021, 4, 4, 3, 2, 1))
export const MTIME_HTTP = 'Tue, 04 May 2021 03:02:01 GMT'
export const CONTENT = 'hello, cached world\n'.repeat(10)

/** The body of the 412 for a failed If-Match, in the errors component's shape. */
export const IF_MATCH_FAILED = {
  statusCode: 412,
  code: 'GATEHOUSE_CACHE_PRECONDITION_FAILED',
  error: 'Precondition Failed',
  message: 'Precondition failed: If-Match does not match the current representation'
}

/** A temporary directory with `file.txt` (CONTENT, mtime MTIME); removed by `cleanup`. */
export function fixture (): { dir: string, file: string, cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-cache-'))
  const file = join(dir, 'file.txt')
  writeFileSync(file, CONTENT)
  utimesSync(file, MTIME, MTIME)
  return { dir, file, cleanup: () => rmSync(dir, { recursive: true, force: true }) }
}

/** Streams the routes opened, so tests can see they were closed. */
export const opened: ReadStream[] = []

/** An app with the errors and cache components through the chain, and routes serving `file`. */
export async function build (file: string, cache: CacheOptions | true = true, routes: (app: FastifyInstance) => void = () => {}): Promise<FastifyInstance> {
  const app = Fastify()
  await middlewareChain(app, { middleware: { cache: cache as Record<string, unknown> | true } }, { components: [errorsPlugin, cachePlugin] })
  app.get('/file', async (request, reply) => {
    request.scope.filePath = file
    return reply.type('text/plain').send(readFileSync(file))
  })
  app.post('/file', async (request, reply) => {
    request.scope.filePath = file
    return reply.type('text/plain').send(readFileSync(file))
  })
  app.get('/stream', async (_request, reply) => {
    const stream = createReadStream(file)
    opened.push(stream)
    return reply.type('text/plain').send(stream)
  })
  app.get('/json', async () => ({ hello: 'world' }))
  routes(app)
  await app.ready()
  return app
}
