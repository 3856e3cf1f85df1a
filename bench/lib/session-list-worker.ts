// One store of the session-list benchmark (session-list.ts), in a process
// of its own: seeds the other users' sessions column by column and
// measures listFor at each size.
//   fork (node --import tsx): session-list-worker.ts <ListWorkerConfig as JSON>
import { Redis } from 'ioredis'
import { PostgresSessionStore } from '@fastify-gatehouse/postgres'
import { RedisSessionStore } from '@fastify-gatehouse/redis'
import { MemorySessionStore, type SessionStore } from '@fastify-gatehouse/session'
import type { ListCell, ListWorkerConfig, ListWorkerResult } from './session-list-kinds.js'
import { memoryCells, pgCells, redisCells } from './session-list-measure.js'
import { LISTED_SESSIONS, seedListed, seedOthers, seedOthersSql } from './session-list-seed.js'

if (process.send === undefined) throw new Error('session-list-worker.ts is forked by session-list.ts')
const config = JSON.parse(process.argv[2]!) as ListWorkerConfig
const cells: Record<string, ListCell> = {}
const plans: Record<string, string> = {}
const largest = config.sizes.at(-1)!

const log = (text: string): void => { console.error(`  ${config.store}: ${text}`) }
const messageOf = (err: unknown): string => err instanceof Error ? `${(err as { code?: string }).code ?? err.name}: ${err.message}` : String(err)

let result: ListWorkerResult
let store: SessionStore | undefined
let client: Redis | undefined
try {
  store = config.store === 'memory'
    ? new MemorySessionStore({ maxSignedIn: largest + LISTED_SESSIONS, maxAnonymous: 1 })
    : config.store === 'redis'
      ? await RedisSessionStore.connect({ url: config.redisUrl, prefix: config.redisPrefix })
      : await PostgresSessionStore.connect({ url: config.url })
  if (config.store === 'redis') client = new Redis(config.redisUrl)
  await seedListed(store)
  let seeded = 0
  for (const n of config.sizes) {
    const started = Date.now()
    if (config.store === 'pg') await seedOthersSql(config.url, seeded, n)
    else await seedOthers(store, seeded, n)
    seeded = n
    log(`${n} other sessions seeded in ${((Date.now() - started) / 1000).toFixed(1)} s`)
    try {
      const measured = config.store === 'memory'
        ? memoryCells(store)
        : config.store === 'redis'
          ? await redisCells(store, client!, config.calls)
          : await pgCells(store, config.url, config.calls).then(({ cells, plan }) => { plans[String(n)] = plan; return cells })
      for (const [id, cell] of Object.entries(measured)) cells[`${id} ${n}`] = cell
      log(`${n}: ${JSON.stringify(measured)}`)
    } catch (err) {
      cells[`* ${n}`] = { failed: messageOf(err) }
      log(`${n}: ${messageOf(err)}`)
    }
  }
  result = { cells, plans }
} catch (err) {
  result = Object.keys(cells).length > 0 ? { cells: { ...cells, '*': { failed: messageOf(err) } }, plans } : { failed: messageOf(err) }
} finally {
  client?.disconnect()
  await (store as { close?: () => Promise<void> } | undefined)?.close?.().catch(() => {})
}
process.send(result, () => process.exit(0))
