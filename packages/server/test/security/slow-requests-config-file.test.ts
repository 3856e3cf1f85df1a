// Issue 13, item 9, through the CLI: `gatehouse serve` takes the server
// limits from the config file's `server:` section and refuses bad keys.
// The bad files run in this process through runCli; one real serve process
// shows the limits applied (see slow-requests-hold-sockets.test.ts).
import { test } from 'tap'
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { gatehouse } from '../helpers/cli.js'
import { openRaw, statusOf, trickle } from '../helpers/raw-http.js'
import { collect, stopChild, waitForOutput } from '../../../../test-helpers/child.js'

const SLOW_BODY_HEAD = 'POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n'
const BODY = `{"pad":"${'x'.repeat(990)}"}`

const FIXTURE = fileURLToPath(new URL('../fixtures/gatehouse.ts', import.meta.url))
const APP = fileURLToPath(new URL('../fixtures/shop-app.ts', import.meta.url))
const tsx = ['--import', 'tsx', '--conditions=gatehouse-src', FIXTURE]

test('gatehouse serve honours the config file\'s server section, and refuses a bad key', async (t) => {
  const dir = t.testdir({
    'limits.yaml': 'server:\n  host: 127.0.0.1\n  request_timeout: 1000\n  headers_timeout: 500\n  body_limit: 1000\n',
    'typo.yaml': 'server:\n  request_timout: 1000\n',
    'negative.yaml': 'server:\n  body_limit: -5\n',
    'headers.yaml': 'server:\n  request_timeout: 1000\n  headers_timeout: 5000\n'
  })
  // In this process, through runCli (what the bin runs); nothing from this process's environment.
  const run = async (config: string) => await gatehouse(['serve', '--config', config, '--port', '0'], { cwd: dir, env: {}, cleanEnv: true })
  t.match(await run('typo.yaml'), { code: 1, stderr: /server\.request_timout: unknown option/ })
  t.match(await run('negative.yaml'), { code: 1, stderr: /server\.body_limit: expected integer to be greater or equal to 1/ })
  t.match(await run('headers.yaml'), { code: 1, stderr: /server\.headers_timeout: 5000 ms must not exceed request_timeout \(1000 ms\)/ })

  const child = spawn(process.execPath, [...tsx, 'serve', '--config', 'limits.yaml', '--app', APP, '--port', '0'], { cwd: dir })
  t.teardown(() => { if (child.exitCode === null) child.kill('SIGKILL') })
  const output = collect(child)
  const port = Number((await waitForOutput(child, output, /serving at http:\/\/127\.0\.0\.1:(\d+)\//, { what: 'the "serving at" line' }))[1])
  const slow = await openRaw(port)
  slow.socket.write(SLOW_BODY_HEAD)
  const sent = await trickle(slow, BODY, 50)
  t.ok(sent < BODY.length, 'request_timeout: the slow body is cut off')
  t.equal(statusOf(slow.received()), 408)
  const big = await fetch(`http://127.0.0.1:${port}/anything`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ pad: 'x'.repeat(2000) }) })
  t.equal(big.status, 413, 'body_limit')
  t.equal(await stopChild(child, 'SIGTERM'), 0)
})
