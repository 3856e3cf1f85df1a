// The threat: scanners probe /.env, /.git/config and the like for secrets
// an application (or a static file server) might hand out.
import { test } from 'tap'
import { connect } from 'node:net'
import { build } from './helpers/build.js'

const NOT_FOUND = { statusCode: 404, code: 'GATEHOUSE_WELLKNOWN_NOT_FOUND', error: 'Not Found', message: 'Not Found' }

test('dot paths answer 404 before the application sees them, even where it has the route', async (t) => {
  const { app, seen } = await build()
  t.teardown(() => app.close())
  const probes = ['/.env', '/.env?x=1', '/.git/config', '//.env', '/%2Eenv', '/%2egit/config', '/.hidden', '/.well-known/app-owned', '/.well-known/unknown', '/..%2f.env']
  for (const url of probes) {
    for (const method of ['GET', 'HEAD', 'POST'] as const) {
      const res = await app.inject({ method, url })
      t.equal(res.statusCode, 404, `${method} ${url}`)
      if (method !== 'HEAD') t.same(res.json(), NOT_FOUND, `${method} ${url}`)
    }
  }
  t.same(seen, [], 'no application handler ran')
})

test('paths whose first segment does not start with a dot are the application\'s', async (t) => {
  const { app, seen } = await build()
  t.teardown(() => app.close())
  for (const url of ['/', '/a.env', '/static/.env']) {
    const res = await app.inject(url)
    t.equal(res.statusCode, 200, url)
    t.same(res.json(), { app: true })
  }
  t.same(seen, ['/', '/a.env', '/static/.env'])
})

test('dot paths are refused before route rules: 404, never 403', async (t) => {
  const { app } = await build()
  t.teardown(() => app.close())
  const rule = await app.inject('/.hidden')
  t.equal(rule.statusCode, 404, 'the route rule (admin) would have said 403')
  t.equal(rule.json().code, 'GATEHOUSE_WELLKNOWN_NOT_FOUND')
})

function raw (port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(text))
    let data = ''
    socket.setEncoding('latin1')
    socket.on('data', (chunk: string) => { data += chunk })
    socket.on('end', () => resolve(data))
    socket.on('error', reject)
  })
}

test('absolute-form targets are checked too; OPTIONS * passes untouched (real socket)', async (t) => {
  const { app, seen } = await build()
  t.teardown(() => app.close())
  await app.listen({ host: '127.0.0.1', port: 0 })
  const port = (app.server.address() as { port: number }).port
  const absolute = await raw(port, 'GET http://localhost/.env HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n')
  t.match(absolute, /^HTTP\/1\.1 404 /)
  t.match(absolute, /GATEHOUSE_WELLKNOWN_NOT_FOUND/)
  const asterisk = await raw(port, 'OPTIONS * HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n')
  t.match(asterisk, /^HTTP\/1\.1 404 /)
  t.notMatch(asterisk, /GATEHOUSE_WELLKNOWN/, 'the router\'s answer, not ours')
  t.same(seen, [])
})
