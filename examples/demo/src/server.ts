import { buildDemo } from './app.js'

const host = process.env.HOST ?? '127.0.0.1'
const port = Number.parseInt(process.env.PORT ?? '8000', 10)

const app = await buildDemo({ logger: { level: process.env.LOG_LEVEL ?? 'info' } })

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    app.log.info(`${signal}: closing`)
    app.close().then(() => process.exit(0), () => process.exit(1))
  })
}

try {
  await app.listen({ host, port })
} catch (err) {
  console.error(`Cannot listen on ${host}:${port}: ${(err as Error).message}`)
  process.exit(1)
}
const address = app.server.address()
const actualPort = typeof address === 'object' && address !== null ? address.port : port
console.log(`Gatehouse demo ready at http://${host}:${actualPort}/  (try /boom and /teapot; Ctrl-C stops)`)
