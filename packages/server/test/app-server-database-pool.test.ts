// Issue 25, item 4: the stores of an AppServer share one pool per database,
// so a PostgreSQL with few connections serves every request class of every
// instance; the connection budget is instances × (poolSize + 2). On a
// private cluster whose non-superuser slots are exactly two instances'
// budget: every class answers on both instances; when other clients take
// every slot, each request is a coded 503 at once (never a 500 or a hang);
// when they leave, traffic recovers by itself. D-POSTGRES-23.
import { test } from 'tap'
import { performance } from 'node:perf_hooks'
import pg from 'pg'
import { migrate } from '@fastify-gatehouse/postgres'
import { AppServer } from '@fastify-gatehouse/server'
import { needTestCluster, testCluster, type TestCluster } from '../../postgres/test/helpers/cluster.js'
import { hangSignal, UNHURRIED_CALLBACK_TIMEOUT_S, waitUntil } from '../../../test-helpers/wait.js'

const cluster = await needTestCluster()

// 14 connections, 2 kept for superusers: the `gatehouse` role (not a
// superuser) gets 12, two instances' budget at poolSize 4: 2 × (4 + 2).
const MAX_CONNECTIONS = 14
const RESERVED = 2
const POOL_SIZE = 4
const INSTANCES = 2
const USERS = 6
const PASSWORD = 'gatekeeper-pass-1'

type Kind = 'login' | 'apiKey' | 'session'
interface Outcome { kind: Kind, instance: number, status: number, code: string | undefined, retryAfter: string | null, ms: number }

async function asSuperuser<T> (db: TestCluster, database: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: db.url(database) })
  client.on('error', () => {})
  await client.connect()
  try {
    return await work(client)
  } finally {
    await client.end().catch(() => {})
  }
}

const json = (method: string, body: unknown, cookie?: string): RequestInit => ({
  method,
  headers: { 'content-type': 'application/json', ...(cookie === undefined ? {} : { cookie }) },
  body: JSON.stringify(body),
  signal: hangSignal()
})
const passwordOf = (identity: string): string => `secret-number-${identity.slice(4)}`
const cookieOf = (res: Response): string => res.headers.getSetCookie().find((l) => l.startsWith('session_id='))!.split(';')[0]!

test('one pool per instance: every store answers on a PostgreSQL with 12 connections for two instances', cluster, async (t) => {
  const db = await testCluster(t, [`max_connections=${MAX_CONNECTIONS}`, `superuser_reserved_connections=${RESERVED}`])
  await asSuperuser(db, 'postgres', async (client) => {
    await client.query('create role gatehouse login')
    await client.query('create database app owner gatehouse')
  })
  const url = `postgres://gatehouse@127.0.0.1:${db.port}/app`
  await migrate({ url })
  const gatehouseBackends = async (): Promise<Record<string, number>> => await asSuperuser(db, 'app', async (client) => {
    const { rows } = await client.query<{ name: string, n: number }>("select application_name as name, count(*)::int as n from pg_stat_activity where usename = 'gatehouse' group by 1")
    return Object.fromEntries(rows.map((r) => [r.name, r.n]))
  })

  // No cache (cacheSize 0): every API-key request and every session's user
  // check is a query, so every class needs a connection each time.
  const bases: string[] = []
  for (let i = 0; i < INSTANCES; i++) {
    const server = new AppServer({
      logger: false,
      database: { url, poolSize: POOL_SIZE, cacheSize: 0, negativeCacheSize: 0, connectTimeout: 30_000, statementTimeout: 30_000 },
      adminPassword: PASSWORD,
      // A login answered 503 after its claim counts as a failure: not a lock
      // here. This test is about connections, not time limits: a burst of
      // logins on a loaded machine queues for scrypt past the 5 s default.
      serverApp: { login: { maxAttempts: 1000, callbackTimeout: UNHURRIED_CALLBACK_TIMEOUT_S } }
    })
    server.register(async (app) => { app.get('/whoami', { config: { authRule: 'member' } }, async (request) => request.scope.auth) })
    t.teardown(() => server.close())
    bases.push(await server.serve('127.0.0.1', 0))
  }
  const admin = cookieOf(await fetch(`${bases[0]}/_server/login`, json('POST', { identity: 'admin', password: PASSWORD })))
  const names = Array.from({ length: USERS }, (_, i) => `user${i}`)
  for (const identity of names) {
    const added = await fetch(`${bases[0]}/_server/users`, json('POST', { identity, password: passwordOf(identity), tags: ['member'] }, admin))
    t.equal(added.status, 201, `${identity} added`)
  }
  const issued = await fetch(`${bases[1]}/_server/tokens`, json('POST', { label: 'ci', tags: ['member'] }, admin))
  t.equal(issued.status, 201)
  const { key } = await issued.json() as { key: string }
  // One session per user on each instance, for the session traffic.
  const cookies: string[][] = []
  for (const base of bases) {
    const signedIn: string[] = []
    for (const identity of names) {
      const res = await fetch(`${base}/_server/login`, json('POST', { identity, password: passwordOf(identity) }))
      t.equal(res.status, 200, `${identity} signed in`)
      signedIn.push(cookieOf(res))
    }
    cookies.push(signedIn)
  }

  const request = async (kind: Kind, instance: number, i: number): Promise<Outcome> => {
    const base = bases[instance]!
    const started = performance.now()
    const res = kind === 'login'
      ? await fetch(`${base}/_server/login`, json('POST', { identity: names[i % USERS], password: passwordOf(names[i % USERS]!) }))
      : await fetch(`${base}/whoami`, {
        headers: kind === 'apiKey' ? { authorization: `Bearer ${key}` } : { cookie: cookies[instance]![i % USERS]! },
        signal: hangSignal()
      })
    const body = await res.text()
    let code: string | undefined
    try {
      code = (JSON.parse(body) as { code?: string }).code
    } catch {}
    return { kind, instance, status: res.status, code, retryAfter: res.headers.get('retry-after'), ms: performance.now() - started }
  }
  // A round: on every instance at once, one login per user, and a dozen
  // API-key and session requests.
  const round = async (): Promise<Outcome[]> => await Promise.all(bases.flatMap((_, instance) => [
    ...names.map((_name, i) => request('login', instance, i)),
    ...Array.from({ length: 12 }, (_x, i) => request('apiKey', instance, i)),
    ...Array.from({ length: 12 }, (_x, i) => request('session', instance, i))
  ]))
  const failures = (outcomes: Outcome[]): string[] => outcomes.filter((o) => o.status !== 200).map((o) => `${o.kind}@${o.instance}: ${o.status} ${o.code ?? ''}`)

  await t.test('every class answers on every instance, rounds after rounds', async (t) => {
    const outcomes: Outcome[] = []
    for (let r = 0; r < 5; r++) outcomes.push(...await round())
    t.same(failures(outcomes), [], `all ${outcomes.length} requests answered 200`)
    const held = await gatehouseBackends()
    t.ok((held.gatehouse ?? 0) <= INSTANCES * POOL_SIZE, `pool connections within the budget: ${JSON.stringify(held)}`)
    t.equal(held['gatehouse-listener'], INSTANCES * 2, 'two listeners an instance')
  })

  await t.test('other clients take every slot: coded 503s at once, never a 500 or a hang; then traffic recovers', async (t) => {
    // Other clients of the role take every slot the instances' pools free.
    const hogs: pg.Client[] = []
    t.teardown(async () => { await Promise.all(hogs.map(async (c) => await c.end().catch(() => {}))) })
    const grab = async (): Promise<void> => {
      for (;;) {
        const client = new pg.Client({ connectionString: url, application_name: 'hog' })
        client.on('error', () => {})
        try {
          await client.connect()
        } catch (err) {
          t.equal((err as { code?: string }).code, '53300', 'the role has no slot left')
          return
        }
        hogs.push(client)
      }
    }
    await waitUntil(async () => {
      await asSuperuser(db, 'app', async (client) => {
        await client.query("select pg_terminate_backend(pid) from pg_stat_activity where usename = 'gatehouse' and application_name = 'gatehouse'")
      })
      await grab()
      return (await gatehouseBackends()).gatehouse === undefined
    }, { what: 'the hogs to hold every slot the pools held' })

    const starved = await round()
    const bad = starved.filter((o) => o.status !== 200 && !(o.status === 503 && o.retryAfter === '5' &&
      ['GATEHOUSE_POSTGRES_UNAVAILABLE', 'GATEHOUSE_SESSION_STORE_UNAVAILABLE', 'GATEHOUSE_SESSION_CHECK_UNAVAILABLE'].includes(o.code ?? '')))
    t.same(bad, [], 'every request is answered 200 or a coded 503 with Retry-After')
    t.ok(starved.some((o) => o.status === 503), `the database full, requests get 503 (${starved.filter((o) => o.status === 503).length} of ${starved.length})`)
    const slowest = Math.max(...starved.map((o) => o.ms))
    t.pass(`slowest answer while every slot was taken: ${Math.round(slowest)} ms`)

    await Promise.all(hogs.splice(0).map(async (c) => await c.end().catch(() => {})))
    const waited = await waitUntil(async () => failures(await round()).length === 0, { what: 'every class on every instance to answer 200 again' })
    t.pass(`the slots free again, a whole round answered 200 after ${waited} ms`)
    const after: Outcome[] = []
    for (let r = 0; r < 3; r++) after.push(...await round())
    t.same(failures(after), [], `and ${after.length} more`)
  })
})
