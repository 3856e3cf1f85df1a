// The CLI as another process: a key issued by one process reaches a running
// server, and the built bin runs. Its own file, as each child takes seconds
// to start (minutes on a busy machine); cli.test.ts has the rest.
import { test } from 'tap'
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import Fastify from 'fastify'
import { authPlugin } from '@fastify-gatehouse/auth'
import { FileApiKeyStore } from '@fastify-gatehouse/files'
import { HANG_CEILING_MS, waitUntil } from '../../../test-helpers/wait.js'

const FIXTURE = fileURLToPath(new URL('./fixtures/gatehouse.ts', import.meta.url))
const BIN = fileURLToPath(new URL('../bin/gatehouse.js', import.meta.url))

interface Run { code: number | null, stdout: string, stderr: string }

/** Runs the CLI as a child: on the sources through tsx, or (`bin`) the built bin. */
function gatehouse (args: string[], options: { bin?: boolean } = {}): Promise<Run> {
  const argv = options.bin === true ? [BIN, ...args] : ['--import', 'tsx', '--conditions=gatehouse-src', FIXTURE, ...args]
  const child = spawn(process.execPath, argv, { timeout: HANG_CEILING_MS })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (c) => { stdout += c })
  child.stderr.on('data', (c) => { stderr += c })
  child.stdin.end()
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })))
}

test('a running server accepts a key issued by the CLI (another process), and drops it when revoked', async (t) => {
  const dir = t.testdir({})
  const apiKeys = await FileApiKeyStore.open(join(dir, 'keys.json'))
  const app = Fastify()
  t.teardown(async () => { await app.close(); await apiKeys.close() })
  await app.register(authPlugin, { apiKeys })
  app.get('/whoami', { authRule: 'deploy' }, async (req) => req.scope.auth)
  const issued = await gatehouse(['keys', 'issue', '--label', 'deployer', '--tags', 'deploy', '--store', dir])
  const key = issued.stdout.trim()
  const call = () => app.inject({ url: '/whoami', headers: { authorization: `Bearer ${key}` } })
  // The store reloads the file every watchInterval (250 ms): polled, as a
  // busy machine may take longer to get there.
  const accepted = await waitUntil(async () => (await call()).statusCode === 200, { what: 'the issued key to be accepted' })
  const res = await call()
  t.equal(res.statusCode, 200, `accepted after ${accepted} ms`)
  t.same(res.json(), { identity: 'deployer', tags: ['deploy'], backend: 'api_key' })
  await gatehouse(['keys', 'revoke', key.slice(4, 20), '--store', dir])
  const refused = await waitUntil(async () => (await call()).statusCode === 401, { what: 'the revoked key to be refused' })
  t.equal((await call()).statusCode, 401, `refused after ${refused} ms`)
})

test('the built bin runs (after pnpm build)', async (t) => {
  if (!existsSync(fileURLToPath(new URL('../dist/cli/main.js', import.meta.url)))) {
    t.fail('packages/server/dist is missing: run pnpm build (pnpm test does)')
    return
  }
  const dir = t.testdir({})
  const res = await gatehouse(['keys', 'issue', '--label', 'from-bin', '--store', dir], { bin: true })
  t.equal(res.code, 0, res.stderr)
  t.match(res.stdout, /^gak_/)
})
