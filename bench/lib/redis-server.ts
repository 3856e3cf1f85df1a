// A redis-server of the benchmark's own on loopback (no persistence), so
// that INFO commandstats counts the benchmark's commands and nothing else.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { createServer } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { Redis } from 'ioredis'

/** A free TCP port on 127.0.0.1. */
async function freePort (): Promise<number> {
  const server = createServer()
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as { port: number }
  server.close()
  await once(server, 'close')
  return port
}

/** Starts redis-server (from the PATH) and waits up to 30 s for it to answer; `stop()` kills it. */
export async function ownRedis (): Promise<{ url: string, stop: () => Promise<void> }> {
  const port = await freePort()
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' })
  const exited = once(child, 'exit')
  const failed = once(child, 'error')
  const url = `redis://127.0.0.1:${port}/0`
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL')
      await exited
    }
  }
  for (let tries = 0; tries < 300; tries++) {
    const outcome = await Promise.race([failed.then(([err]) => err as Error), sleep(100).then(() => null)])
    if (outcome !== null) throw new Error(`redis-server could not start: ${outcome.message}`)
    if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}`)
    const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null })
    client.on('error', () => {})
    try {
      await client.connect()
      if (await client.ping() === 'PONG') return { url, stop }
    } catch {
      // not up yet
    } finally {
      client.disconnect()
    }
  }
  await stop()
  throw new Error('redis-server did not answer within 30 s')
}
