// A free TCP port on loopback, for a test that must know a server's port
// before it starts (a redirect URI, a private redis-server or PostgreSQL).
import { createServer } from 'node:net'

// Below Linux's ephemeral range (32768–60999 by default): a port the kernel
// hands to an outgoing connection (the PostgreSQL and Redis tests open
// hundreds) can never be one chosen here, so a port found free stays free
// between this check and the test's listen(), unless another test picks the
// same one of these 17 000 at the same moment.
const LOW = 15_000
const HIGH = 32_000

async function bindable (port: number): Promise<boolean> {
  const server = createServer()
  const bound = await new Promise<boolean>((resolve) => {
    server.once('error', () => resolve(false))
    server.listen(port, '127.0.0.1', () => resolve(true))
  })
  if (bound) await new Promise((resolve) => server.close(resolve))
  return bound
}

export async function freePort (): Promise<number> {
  for (let tries = 0; tries < 200; tries++) {
    const port = LOW + Math.floor(Math.random() * (HIGH - LOW))
    if (await bindable(port)) return port
  }
  throw new Error(`no free port found between ${LOW} and ${HIGH} in 200 tries`)
}
