import type { Test } from 'tap'
import { PassThrough } from 'node:stream'
import { join } from 'node:path'
import { FileUserStore } from '@fastify-gatehouse/files'
import type { SessionStore } from '@fastify-gatehouse/session'
import { runCli } from '@fastify-gatehouse/server'
import { eventually as shared, HANG_CEILING_MS, hangSignal } from '../../../../test-helpers/wait.js'
import { get, login, sessionCookie, startInstance, type Instance } from './redis-servers.js'

export const FAST = { N: 1024, r: 8, p: 1 }
export const ADMIN_PASSWORD = 'keeper-pass-0123'

/** A users.json in `dir` with alice/alice-pass (tag member); resolves with its path. */
export async function usersFile (dir: string): Promise<string> {
  const path = join(dir, 'users.json')
  const seed = await FileUserStore.open(path, { scrypt: FAST })
  await seed.add('alice', { password: 'alice-pass', tags: 'member' })
  return path
}

/**
 * An instance reading `path` through its own FileUserStore (as another
 * process would), with the admin bootstrapped; see startInstance.
 */
export async function fileInstance (path: string, sessionStore: SessionStore): Promise<Instance & { users: FileUserStore }> {
  const users = await FileUserStore.open(path, { scrypt: FAST })
  return { ...await startInstance({ sessionStore, users, adminPassword: ADMIN_PASSWORD }), users }
}

/** Signs in and resolves with the `session_id=…` cookie. */
export async function signIn (base: string, identity: string, password: string): Promise<string> {
  const res = await login(base, identity, password)
  if (res.status !== 200) throw new Error(`sign-in of ${identity} failed: ${res.status}`)
  return sessionCookie(res)
}

/** An admin API call with the admin's cookie. */
export async function admin (base: string, cookie: string, method: 'PATCH' | 'DELETE', identity: string, body?: unknown): Promise<Response> {
  return await fetch(`${base}/_server/users/${identity}`, {
    method,
    headers: { cookie, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: hangSignal()
  })
}

/** `gatehouse users <args…> --store <dir>` run in this process (the CLI function); resolves with its exit code. */
export async function cli (dir: string, args: string[], stdin = ''): Promise<number> {
  const input = new PassThrough()
  input.end(stdin)
  return await runCli(['users', ...args, '--store', dir], { stdin: input, stdout: new PassThrough().resume(), stderr: new PassThrough().resume(), env: {}, cwd: dir })
}

/** Polls `what` every 20 ms until true, up to the hang ceiling; resolves with whether it became true. */
export async function eventually (what: () => Promise<boolean>, ceilingMs = HANG_CEILING_MS): Promise<boolean> {
  return await shared(what, { ceilingMs, everyMs: 20 })
}

export interface Shot { started: number, status: number }

/**
 * Keeps `workers` requests of `path` with `cookie` in flight against each
 * base until `stop()`; `shots` fills with each answered request's start
 * time and status.
 */
export function barrage (bases: readonly string[], path: string, cookie: string, workers: number): { shots: readonly Shot[], stop: () => Promise<Shot[]> } {
  const shots: Shot[] = []
  let running = true
  const loops = bases.flatMap((base) => Array.from({ length: workers }, async () => {
    // eslint-disable-next-line no-unmodified-loop-condition -- stop() clears it while this loop awaits
    while (running) {
      const started = Date.now()
      const res = await get(base, path, { cookie })
      await res.arrayBuffer()
      shots.push({ started, status: res.status })
    }
  }))
  return { shots, stop: async () => { running = false; await Promise.all(loops); return shots } }
}

/**
 * Races `change` (a disable, a delete…) against `workers` parallel requests
 * per base that keep `cookie` in flight, and asserts that every request
 * started more than `bound` ms after the change was done is refused (403),
 * while some got through before it. Waits poll with generous ceilings.
 */
export async function raceChange (t: Test, bases: readonly string[], cookie: string, workers: number, change: () => Promise<void>, bound = 0): Promise<void> {
  const wanted = 2 * workers * bases.length
  const load = barrage(bases, '/orders', cookie, workers)
  await eventually(async () => load.shots.length >= wanted)
  await change()
  const cutoff = Date.now() + bound
  await eventually(async () => load.shots.filter((s) => s.started > cutoff).length >= wanted)
  const shots = await load.stop()
  const after = shots.filter((s) => s.started > cutoff)
  t.ok(shots.some((s) => s.status === 200), `some got through before (${shots.filter((s) => s.status === 200).length} of ${shots.length})`)
  t.ok(after.length >= wanted / 2, `${after.length} started after the change${bound > 0 ? ` plus ${bound} ms` : ''}`)
  t.same(after.filter((s) => s.status !== 403), [], 'every one started after it is refused')
}

/** The admin API's changes to a user that must end their sessions: `[name, method, body]` of a `/_server/users/alice` call. */
export const ADMIN_CHANGES: ReadonlyArray<readonly [string, 'PATCH' | 'DELETE', unknown]> = [
  ['disabled', 'PATCH', { enabled: false }],
  ['re-passworded', 'PATCH', { password: 'changed-pass' }],
  ['deleted', 'DELETE', undefined]
]
