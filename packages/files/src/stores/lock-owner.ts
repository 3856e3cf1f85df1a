import { randomBytes } from 'node:crypto'
import { readFileSync, readlinkSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { hostname } from 'node:os'
import { isPlainObject } from '@fastify-gatehouse/core'

/**
 * Who holds a store file's lock: written in the lock directory by the
 * process that created it (file-lock.ts). The token tells holders apart;
 * the rest lets a process on the same machine see whether the holder is
 * still running (D-AUTH-32, D-AUTH-34).
 */
export interface LockOwner {
  /** New for each lock taken: the holder is the process whose token is in the lock. */
  readonly token: string
  readonly pid: number
  /** For people reading the lock; never compared. */
  readonly host: string
  /**
   * Linux: the boot and the PID namespace the holder runs in. Another
   * process with the same value can look the holder's pid up in /proc.
   * Absent elsewhere: the holder's liveness is then never known.
   */
  readonly machine?: string
  /** Linux: the holder's start time (clock ticks after boot), which a reused pid does not share. */
  readonly start?: string
}

let here: { machine?: string, start?: string } | undefined

/** This process's machine and start time (Linux), read once. */
function thisProcess (): { machine?: string, start?: string } {
  if (here !== undefined) return here
  try {
    const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()
    const namespace = readlinkSync('/proc/self/ns/pid')
    const start = startOf(readFileSync('/proc/self/stat', 'utf8'))
    here = start === undefined ? {} : { machine: `${boot}/${namespace}`, start }
  } catch {
    here = {}
  }
  return here
}

/** A new owner for a lock this process is about to take. */
export function newOwner (): LockOwner {
  return { token: randomBytes(16).toString('hex'), pid: process.pid, host: hostname(), ...thisProcess() }
}

/** The owner in a lock's owner file; undefined when it is not one (a lock being created, a hand-made file). */
export function parseOwner (text: string): LockOwner | undefined {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return undefined
  }
  if (!isPlainObject(value) || typeof value.token !== 'string' || value.token === '') return undefined
  const pid = value.pid
  if (typeof pid !== 'number' || !Number.isSafeInteger(pid) || pid < 1) return undefined
  const host = typeof value.host === 'string' ? value.host : ''
  const machine = typeof value.machine === 'string' ? value.machine : undefined
  const start = typeof value.start === 'string' && /^\d+$/.test(value.start) ? value.start : undefined
  return { token: value.token, pid, host, ...(machine === undefined ? {} : { machine }), ...(start === undefined ? {} : { start }) }
}

/**
 * Whether `owner` is known to be a process still running on this machine
 * (the same pid, started at the same time, not a zombie) and holding its
 * lock. This process holds the locks whose tokens are in `holding`: one of
 * its own it no longer holds (a release that failed) is not held. False
 * whenever that cannot be known (another machine, another OS, /proc
 * hidden): this only ever stops a takeover, never allows one.
 * D-AUTH-34.
 */
export async function knownAlive (owner: LockOwner | undefined, holding: ReadonlySet<string>): Promise<boolean> {
  const { machine, start } = thisProcess()
  if (owner?.machine === undefined || owner.start === undefined || owner.machine !== machine) return false
  if (owner.pid === process.pid && owner.start === start) return holding.has(owner.token)
  let stat: string
  try {
    stat = await readFile(`/proc/${owner.pid}/stat`, 'utf8')
  } catch {
    return false
  }
  return startOf(stat) === owner.start
}

/** The start time in a /proc/<pid>/stat line; undefined for a process that has exited (a zombie). */
function startOf (stat: string): string | undefined {
  // The command name (field 2) is in parentheses and may hold spaces and parentheses itself.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  // fields[0] is field 3 (the state), so field 22 (the start time) is fields[19].
  if (fields[0] === 'Z' || fields[0] === 'X') return undefined
  const start = fields[19]
  return start !== undefined && /^\d+$/.test(start) ? start : undefined
}
