import { test } from 'tap'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import pino from 'pino'
import { buildDemo } from '../src/app.js'

test('demo routes via inject: open route, failing route, HttpError', async (t) => {
  const lines: Array<{ name?: string, msg: string }> = []
  const app = await buildDemo({ loggerInstance: pino({ level: 'info' }, { write: (l: string) => { lines.push(JSON.parse(l)) } }) })
  t.teardown(() => app.close())
  const home = await app.inject('/')
  t.equal(home.statusCode, 200)
  t.equal(home.json().service, 'gatehouse demo')
  const boom = await app.inject('/boom')
  t.equal(boom.statusCode, 500)
  t.same(boom.json(), { statusCode: 500, error: 'Internal Server Error', message: 'Internal Server Error' })
  const tea = await app.inject({ url: '/teapot', headers: { accept: 'text/html' } })
  t.equal(tea.statusCode, 418)
  t.equal(tea.body, "418 I'm a Teapot: This server brews tea only")
  const access = lines.filter((l) => l.name === 'service.access').map((l) => l.msg)
  t.match(access, [/^<- GET \/ from /, /^-> GET \/ 200 /, /^<- GET \/boom/, /^-> GET \/boom ERROR: the demo route failed on purpose \(/])
})

test('the demo entry point serves on a real socket and stops on SIGTERM', async (t) => {
  const entry = fileURLToPath(new URL('../src/server.ts', import.meta.url))
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=gatehouse-src', entry], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  t.teardown(() => { if (child.exitCode === null) child.kill('SIGKILL') })
  let output = ''
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`demo did not start: ${output}`)), 30_000)
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      const match = /ready at (http:\/\/127\.0\.0\.1:\d+\/)/.exec(output)
      if (match?.[1] !== undefined) { clearTimeout(timer); resolve(match[1]) }
    })
    child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString() })
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`demo exited ${code}: ${output}`)) })
  })
  const home = await fetch(url)
  t.equal(home.status, 200)
  t.equal(((await home.json()) as { service: string }).service, 'gatehouse demo')
  const boom = await fetch(new URL('/boom', url))
  t.equal(boom.status, 500)
  t.match(output, /"name":"service\.access".*"msg":"<- GET \/ from 127\.0\.0\.1"/)
  child.kill('SIGTERM')
  const [code] = await once(child, 'exit')
  t.equal(code, 0, 'graceful exit on SIGTERM')
})
