import { resolve } from 'node:path'
import { startDemo } from './app.js'

const host = process.env.HOST ?? '127.0.0.1'
const port = Number.parseInt(process.env.PORT ?? '8000', 10)
const dataDir = resolve(process.env.GATEHOUSE_DEMO_DATA ?? '.demo-data')

const demo = await startDemo({
  dataDir,
  ...(process.env.GATEHOUSE_ADMIN_PASSWORD === undefined ? {} : { adminPassword: process.env.GATEHOUSE_ADMIN_PASSWORD }),
  logger: { level: process.env.LOG_LEVEL ?? 'info' } as never
})

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    demo.close().then(() => process.exit(0), () => process.exit(1))
  })
}

let url: string
try {
  url = await demo.server.serve(host, port)
} catch (err) {
  console.error(`Cannot listen on ${host}:${port}: ${(err as Error).message}`)
  process.exit(1)
}
console.log(`Gatehouse demo ready at ${url}/  (data in ${dataDir}; Ctrl-C stops)`)
console.log(`  sign in:   ${url}/_server/login_page?next=/admin`)
if (demo.generatedAdminPassword !== undefined) {
  console.log(`  admin password (shown once; set GATEHOUSE_ADMIN_PASSWORD to choose your own): ${demo.generatedAdminPassword}`)
}
if (demo.apiKey !== undefined) {
  console.log(`  API key (shown once): ${demo.apiKey}`)
  console.log(`  try:       curl -H 'Authorization: Bearer ${demo.apiKey}' ${url}/admin`)
}
