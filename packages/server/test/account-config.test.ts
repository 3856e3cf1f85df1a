// The config file's server_app.account, through `gatehouse serve` in this process.
import { test } from 'tap'
import { EventEmitter } from 'node:events'
import { PassThrough } from 'node:stream'
import { serveCommand } from '../src/cli/serve.js'
import { gatehouse } from './helpers/cli.js'
import { hangSignal, waitUntil } from '../../../test-helpers/wait.js'

/** Serves `file` from `dir` on a free port; resolves with the base URL and how to stop. */
async function serve (dir: string, file: string): Promise<{ base: string, stop: () => Promise<number> }> {
  let out = ''
  const signals = new EventEmitter()
  const stdout = new PassThrough().on('data', (chunk: Buffer) => { out += chunk })
  const running = serveCommand(['--config', file, '--port', '0'], { stdin: new PassThrough(), stdout, stderr: new PassThrough().resume(), env: {}, cwd: dir }, signals)
  running.catch(() => {})
  let base = ''
  await waitUntil(async () => {
    base = /serving at (http:\/\/[^/]+)\//.exec(out)?.[1] ?? ''
    return base !== ''
  }, { what: 'gatehouse serve to listen' })
  return { base, stop: async () => { signals.emit('SIGTERM'); return await running } }
}

test('server_app.account: false turns the account endpoints off; { fresh_for } is taken; a bad value is one line naming it', async (t) => {
  const dir = t.testdir({
    'off.yaml': 'server_app:\n  store: ./data\n  account: false\n',
    'on.yaml': 'server_app:\n  store: ./data\n  account: { fresh_for: 30 }\n',
    'bad.yaml': 'server_app:\n  store: ./data\n  account: { fresh_for: 0 }\n',
    'camel.yaml': 'server_app:\n  store: ./data\n  account: { freshFor: 30 }\n',
    data: {}
  })
  for (const [file, status] of [['off.yaml', 404], ['on.yaml', 401]] as const) {
    const { base, stop } = await serve(dir, file)
    const me = await fetch(`${base}/_server/account/me`, { signal: hangSignal() })
    t.equal(me.status, status, `${file}: /_server/account/me`)
    t.equal((await fetch(`${base}/_server/login_methods`, { signal: hangSignal() })).status, 200, `${file}: the login stays`)
    t.equal(await stop(), 0)
  }
  for (const file of ['bad.yaml', 'camel.yaml']) {
    const res = await gatehouse(['serve', '--config', file, '--port', '0'], { cwd: dir, env: {}, cleanEnv: true })
    t.equal(res.code, 1, file)
    t.match(res.stderr, /^gatehouse: [^\n]*server_app\.account[^\n]*\n$/, `${file}: one line naming server_app.account`)
  }
})
