import { fork, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import autocannon from 'autocannon'
import { pinToCpu } from './pin.js'
import type { Scenario } from './suite.js'

export interface Measurement {
  requests: number
  reqPerSec: number
  p99Ms: number
  cpuMicrosPerRequest: number
  non2xx: number
  errors: number
}

const SERVER = fileURLToPath(new URL('./server.ts', import.meta.url))

function ask (child: ChildProcess, message: string, reply: string): Promise<Record<string, number>> {
  return new Promise((resolve, reject) => {
    const onMessage = (m: { type: string } & Record<string, number>) => {
      if (m.type === reply) { child.off('message', onMessage); resolve(m) }
    }
    child.on('message', onMessage)
    child.once('exit', (code) => reject(new Error(`bench server exited (${code})`)))
    if (message !== '') child.send(message)
  })
}

function load (port: number, scenario: Scenario, seconds: number, connections: number, prepared: Record<string, string>): Promise<autocannon.Result> {
  const { method = 'GET', path = '/', perRequest } = scenario.request ?? {}
  const headers = { ...scenario.request?.headers, ...prepared }
  return autocannon({
    url: `http://127.0.0.1:${port}${path}`,
    method: method as autocannon.Request['method'],
    headers,
    ...(perRequest === undefined
      ? {}
      : { requests: [{ setupRequest: (req: autocannon.Request) => ({ ...req, headers: { ...req.headers, ...perRequest() } }) }] }),
    connections,
    pipelining: 1,
    duration: seconds
  })
}

/**
 * Starts the scenario's server (pinned to `serverCpu` when given), warms it
 * up, and measures one run.
 */
export async function measure (suite: string, name: string, scenario: Scenario, seconds: number, connections: number, serverCpu?: number): Promise<Measurement> {
  const child = fork(SERVER, [suite, name], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  try {
    const { port } = await ask(child, '', 'ready') as { port: number }
    if (serverCpu !== undefined && !pinToCpu(child.pid!, serverCpu)) throw new Error('taskset could not pin the bench server')
    const prepared = scenario.prepare === undefined ? {} : await scenario.prepare(`http://127.0.0.1:${port}`)
    await load(port, scenario, 1, connections, prepared)
    await ask(child, 'reset', 'reset')
    const result = await load(port, scenario, seconds, connections, prepared)
    const stats = await ask(child, 'stats', 'stats') as { cpuMicros: number, requests: number }
    const expected = scenario.expectStatus ?? 200
    const wrong = expected >= 200 && expected < 300 ? result.non2xx : result.requests.total - result.non2xx
    return {
      requests: stats.requests,
      reqPerSec: result.requests.average,
      p99Ms: result.latency.p99,
      cpuMicrosPerRequest: stats.cpuMicros / Math.max(1, stats.requests),
      non2xx: wrong,
      errors: result.errors + result.timeouts
    }
  } finally {
    child.send('stop')
    await Promise.race([once(child, 'exit'), new Promise((resolve) => setTimeout(resolve, 3000))])
    if (child.exitCode === null) child.kill('SIGKILL')
  }
}
