import { buildApp } from './app.js'

// The app with all three components adopted. A real app keeps its secrets in
// the environment, and its users in a store.
const password = process.env.EXAMPLE_PASSWORD ?? 'correct-horse-staple'
const app = await buildApp({
  auth: {
    basic: { ana: { password, tags: 'staff,reports' } },
    bearer: { 'reporting-bot': { token: process.env.EXAMPLE_BOT_TOKEN ?? 'bot-token-0123456789abcdef', tags: 'reports' } }
  },
  cors: true,
  compression: true
}, { logger: true })
const address = await app.listen({ port: Number(process.env.PORT ?? 3000), host: process.env.HOST ?? '127.0.0.1' })
app.log.info(`existing app with Gatehouse at ${address}/`)
