// One part of the PostgreSQL benchmark (postgres.ts) at one table size, in
// a process of its own: a clean heap for the memory parts, and a store that
// hangs or fails costs its own cells only.
//   fork (node --expose-gc --import tsx): postgres-worker.ts <WorkerConfig as JSON>
import type { WorkerConfig, WorkerResult } from './postgres-kinds.js'
import { calls } from './postgres-calls.js'
import { memoryKeys, memoryUsers } from './postgres-memory.js'
import { Rows } from './worker-rows.js'
import { sessions } from './postgres-sessions.js'

if (process.send === undefined) throw new Error('postgres-worker.ts is forked by postgres.ts')
const config = JSON.parse(process.argv[2]!) as WorkerConfig
const rows = new Rows(`${config.part} n=${config.n}`, config.dir)

const PARTS: Record<WorkerConfig['part'], (config: WorkerConfig, rows: Rows) => Promise<void>> = {
  calls,
  'memory-keys': memoryKeys,
  'memory-users': memoryUsers,
  sessions
}

// A store that could not be opened or seeded fails the part's rows, except those measured before.
const result: WorkerResult = await rows.collect(async () => { await PARTS[config.part](config, rows) })
process.send(result, () => process.exit(0))
