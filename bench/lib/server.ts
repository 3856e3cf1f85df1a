// The server side of a measurement, in its own process so that its CPU time
// is its own: `node --import tsx lib/server.ts <suite> <scenario>`.
import type { Suite } from './suite.js'

const [suiteName, scenarioName] = process.argv.slice(2)
const { suite } = await import(`../suites/${suiteName}.js`) as { suite: Suite }
const scenario = suite.scenarios[scenarioName ?? '']
if (scenario === undefined) throw new Error(`no scenario ${scenarioName} in ${suiteName}`)

const app = await scenario.build()
let requests = 0
let cpuStart = process.cpuUsage()
app.server.on('request', () => { requests++ })
await app.listen({ host: '127.0.0.1', port: 0 })
const address = app.server.address()
const port = typeof address === 'object' && address !== null ? address.port : 0

process.on('message', (message: string) => {
  if (message === 'reset') {
    requests = 0
    cpuStart = process.cpuUsage()
    process.send?.({ type: 'reset' })
  } else if (message === 'stats') {
    const cpu = process.cpuUsage(cpuStart)
    process.send?.({ type: 'stats', cpuMicros: cpu.user + cpu.system, requests })
  } else if (message === 'stop') {
    app.close().then(() => process.exit(0), () => process.exit(1))
  }
})
process.send?.({ type: 'ready', port })
