import { isPlainObject } from '@fastify-gatehouse/core'
import type { SessionClient, SessionRecord } from './session-store.js'

/** A record as a shared store keeps it beside its deadline and version. */
interface StoredRecord { identity: string | null, tags: string[], data: Record<string, unknown>, createdAt: number, via?: string | null, stamp?: string | null, authenticatedAt?: number | null, claims?: Readonly<Record<string, unknown>>, client?: SessionClient }

const text = (value: unknown): string | null => typeof value === 'string' ? value : null

function client (value: unknown): SessionClient | null {
  return isPlainObject(value) && typeof value.address === 'string' && typeof value.agent === 'string'
    ? { address: value.address, agent: value.agent }
    : null
}

// Absent: at createdAt, as a record from before the field; malformed: unknown (never fresh).
function signInTime (value: unknown): number | null | undefined {
  if (value === undefined) return undefined
  return typeof value === 'number' && Number.isFinite(value) ? value : null
}

/**
 * The JSON a shared store (Redis, PostgreSQL) keeps of a record: all of it
 * but `expiresAt` and `version`, which the store keeps where its
 * conditional writes can compare them; `via`, `stamp`, `authenticatedAt`
 * and `claims` only when set, so an anonymous or password session stays
 * small; `client` when known.
 */
export function storedRecordJson (record: SessionRecord): string {
  const stored: StoredRecord = {
    identity: record.identity,
    tags: record.tags,
    data: record.data,
    createdAt: record.createdAt,
    ...(record.via === null ? {} : { via: record.via }),
    ...(record.stamp === null ? {} : { stamp: record.stamp }),
    ...(record.authenticatedAt === undefined ? {} : { authenticatedAt: record.authenticatedAt }),
    ...(record.claims == null ? {} : { claims: record.claims }),
    ...(record.client == null ? {} : { client: { address: record.client.address, agent: record.client.agent } })
  }
  return JSON.stringify(stored)
}

/**
 * The record from what {@link storedRecordJson} wrote (already parsed), its
 * deadline and its version; null when it is not a record (written by hand,
 * or by something else).
 */
export function recordFromStored (stored: unknown, expiresAt: number, version: number): SessionRecord | null {
  if (!isPlainObject(stored) || !Array.isArray(stored.tags) || typeof stored.createdAt !== 'number') return null
  const from = client(stored.client)
  const authenticatedAt = signInTime(stored.authenticatedAt)
  // Absent (a record from before the field, a password sign-in) or not an object: none.
  const claims = isPlainObject(stored.claims) ? stored.claims : null
  return {
    identity: text(stored.identity),
    tags: stored.tags as string[],
    data: isPlainObject(stored.data) ? stored.data : {},
    createdAt: stored.createdAt,
    expiresAt,
    version,
    via: text(stored.via),
    stamp: text(stored.stamp),
    ...(authenticatedAt === undefined ? {} : { authenticatedAt }),
    ...(claims === null ? {} : { claims }),
    // Absent when not known, as the record was written.
    ...(from === null ? {} : { client: from })
  }
}
