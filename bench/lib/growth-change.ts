// The other process of the growth benchmark's reload-stall measurement:
// opens the store through its public API (as the CLI or another server
// would), says 'ready', and on 'go' makes ONE change and says 'done'.
//   fork: growth-change.ts keys <path> <keyId> | users <path> <identity>
import { FileApiKeyStore, FileUserStore } from '@fastify-gatehouse/files'
import { CHEAP_SCRYPT } from './growth-seed.js'

const [kind, path, target] = process.argv.slice(2)
if (process.send === undefined || path === undefined || target === undefined) throw new Error('growth-change.ts is forked by growth-worker.ts')
const send = process.send.bind(process)

// Long intervals: this process watches nothing; it only writes.
const change = kind === 'keys'
  ? await FileApiKeyStore.open(path, { watchInterval: 60_000, lastUsedFlushInterval: 3_600_000 }).then((store) => async () => {
    if (!await store.revoke(target)) throw new Error(`no key ${target}`)
    await store.close()
  })
  : await FileUserStore.open(path, { watchInterval: 60_000, scrypt: CHEAP_SCRYPT }).then((store) => async () => {
    if (!await store.setEnabled(target, false)) throw new Error(`no user ${target}`)
  })

process.once('message', (message) => {
  if (message !== 'go') return
  change().then(() => {
    send('done', () => process.exit(0))
  }, (err: Error) => {
    send(`failed: ${err.message}`, () => process.exit(1))
  })
})
send('ready')
