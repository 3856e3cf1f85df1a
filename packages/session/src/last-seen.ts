import type { SessionRecord } from './session-store.js'

/**
 * When a session was last used (ms since the epoch), from its idle
 * deadline: every use moves that deadline to `use + idleTtl` (a read-only
 * use at most once per `touchInterval`), so the last use is `expiresAt -
 * idleTtl`, to within that interval. Near the end of the absolute lifetime
 * the deadline stops moving and this is the earliest the last use can have
 * been. Never before the session began, never after `now`.
 * `idleTtl` in seconds, as the session component's options give it.
 * D-SESSION-19.
 */
export function lastSeenAt (record: Pick<SessionRecord, 'createdAt' | 'expiresAt'>, idleTtl: number, now: number = Date.now()): number {
  return Math.min(now, Math.max(record.createdAt, record.expiresAt - idleTtl * 1000))
}
