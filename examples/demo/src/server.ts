import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { accessLines } from './access-lines.js'
import { startDemo } from './app.js'
import { LOCAL_IDP_USERS, startLocalIdp, type LocalIdp } from './local-idp.js'

const USAGE = 'the demo takes --with-local-idp, --database <postgres://user@host:port/db> and --schema <name>'
let flags: { 'with-local-idp'?: boolean, database?: string, schema?: string }
try {
  flags = parseArgs({
    options: { 'with-local-idp': { type: 'boolean' }, database: { type: 'string' }, schema: { type: 'string' } }
  }).values
} catch (err) {
  console.error(`${(err as Error).message}; ${USAGE}`)
  process.exit(2)
}
const withLocalIdp = flags['with-local-idp'] === true
// PostgreSQL instead of the data folder: --database, else $GATEHOUSE_DATABASE_URL
// (a password in argv is visible to every user of the machine).
const databaseUrl = flags.database ?? (process.env.GATEHOUSE_DATABASE_URL || undefined)
if (flags.schema !== undefined && databaseUrl === undefined) {
  console.error(`--schema goes with --database; ${USAGE}`)
  process.exit(2)
}
const database = databaseUrl === undefined ? undefined : { url: databaseUrl, ...(flags.schema === undefined ? {} : { schema: flags.schema }) }

// With the local provider, the relying party is http://localhost:<port> and
// the provider http://127.0.0.1:<port>: two sites to the browser, as in
// real deployments. The redirect URI is registered before listening, so
// the port must be known first (D-OIDC-10).
const host = process.env.HOST || (withLocalIdp ? 'localhost' : '127.0.0.1') // an empty HOST means unset
let port = Number.parseInt(process.env.PORT ?? '8000', 10)
const dataDir = resolve(process.env.GATEHOUSE_DEMO_DATA ?? '.demo-data')

/** host:port/database of a URL, for the banner: never the password. */
function where (url: string): string {
  const { hostname, port, pathname } = new URL(url)
  return `${hostname}:${port || '5432'}${pathname}`
}

async function freePort (): Promise<number> {
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const free = (probe.address() as AddressInfo).port
  await new Promise((resolve) => probe.close(resolve))
  return free
}

let idp: LocalIdp | undefined
let externalUrl: string | undefined
if (withLocalIdp) {
  if (port === 0) port = await freePort()
  externalUrl = process.env.GATEHOUSE_EXTERNAL_URL ?? `http://localhost:${port}`
  try {
    idp = await startLocalIdp({ redirectUris: [`${externalUrl.replace(/\/+$/, '')}/_server/auth/oidc:local/callback`], port: Number.parseInt(process.env.GATEHOUSE_IDP_PORT ?? '0', 10) })
  } catch (err) {
    console.error(`Cannot start the local identity provider: ${(err as Error).message}`)
    process.exit(1)
  }
}

let demo: Awaited<ReturnType<typeof startDemo>>
try {
  demo = await startDemo({
    dataDir,
    ...(database === undefined ? {} : { database }),
    ...(process.env.GATEHOUSE_ADMIN_PASSWORD === undefined ? {} : { adminPassword: process.env.GATEHOUSE_ADMIN_PASSWORD }),
    logger: { level: process.env.LOG_LEVEL ?? 'info' } as never,
    ...(idp === undefined
      ? {}
      : {
          externalUrl,
          oidc: { local: { issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret, label: 'local', tags: 'oidc-user' } },
          allowInsecureIssuers: true
        })
  })
} catch (err) {
  // A bad URL, an unreachable database: one line, never the password (the stores' messages name host:port/database).
  console.error(`Cannot start the demo: ${(err as Error).message}`)
  await idp?.close()
  process.exit(1)
}

async function close (): Promise<void> {
  await demo.close()
  await idp?.close()
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    close().then(() => process.exit(0), () => process.exit(1))
  })
}

let url: string
try {
  url = await demo.server.serve(host, port)
} catch (err) {
  console.error(`Cannot listen on ${host}:${port}: ${(err as Error).message}`)
  await idp?.close()
  process.exit(1)
}
if (externalUrl !== undefined) url = externalUrl.replace(/\/+$/, '')
console.log(`Gatehouse demo ready at ${url}/  (data in ${database === undefined ? dataDir : `PostgreSQL at ${where(database.url)}, schema ${database.schema ?? 'gatehouse'}`}; Ctrl-C stops)`)
console.log(`  sign in:   ${url}/_server/login_page?next=/admin`)
for (const line of accessLines({
  url,
  generatedAdminPassword: demo.generatedAdminPassword,
  adminPasswordFromEnv: process.env.GATEHOUSE_ADMIN_PASSWORD !== undefined,
  apiKey: demo.apiKey,
  // A URL with a password is never printed (the commands then read $GATEHOUSE_DATABASE_URL).
  store: database === undefined ? { dataDir } : { url: new URL(database.url).password === '' ? database.url : undefined, schema: flags.schema }
})) console.log(line)
if (idp !== undefined) {
  console.log(`  local identity provider at ${idp.issuer} (oidc-provider, development only)`)
  console.log(`  sign in with it: ${url}/_server/login_page?next=/ → "Sign in with local"`)
  console.log(`    user: ${Object.keys(LOCAL_IDP_USERS)[0]}  password: anything (the provider's development form accepts any)`)
}
