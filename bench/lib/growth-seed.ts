// Seeding for the growth benchmark (growth.ts): store files written
// directly in the v1 format every version of the file stores opens, and
// API keys derived from their index, so that a key can be rebuilt (and
// verified) without the benchmark holding n of them in memory.
import { createHash } from 'node:crypto'
import { writeFile } from 'node:fs/promises'

const b64 = (text: string): string => createHash('sha256').update(text).digest('base64url')

/** The id of the i-th seeded key: i in 16 hex digits. */
export const keyIdOf = (i: number): string => i.toString(16).padStart(16, '0')

/** The full `gak_` key of the i-th seeded key (its secret is 43 base64url characters). */
export const keyOf = (i: number): string => `gak_${keyIdOf(i)}_${b64(`growth-bench:${i}`)}`

/** The identity of the i-th seeded user. */
export const identityOf = (i: number): string => `user-${String(i).padStart(6, '0')}`

/** The password of every seeded user. */
export const PASSWORD = 'growth-bench-password'

/** Cheap scrypt parameters, so that a login's cost is the store's work and not the hash's. */
export const CHEAP_SCRYPT = Object.freeze({ N: 16, r: 1, p: 1 })

// Mode 0600 and pretty-printed, as the file stores write their files, so
// that the file's size (and where it crosses 16 MiB) is the real one.
async function writeDocument (path: string, document: unknown): Promise<number> {
  const text = JSON.stringify(document, null, 2) + '\n'
  await writeFile(path, text, { mode: 0o600 })
  return Buffer.byteLength(text)
}

/** Writes `{ version: 1, keys }` with n enabled keys; resolves with the file's size in bytes. */
export function seedKeyFile (path: string, n: number): Promise<number> {
  const createdAt = new Date().toISOString()
  const keys = Array.from({ length: n }, (_, i) => ({
    keyId: keyIdOf(i),
    label: `service ${i}`,
    tags: ['api'],
    enabled: true,
    expiresAt: null,
    createdAt,
    lastUsedAt: null,
    secretHash: `sha256$${b64(keyOf(i).slice(21))}`
  }))
  return writeDocument(path, { version: 1, keys })
}

/** Writes `{ version: 1, users }` with n enabled users sharing one real hash of {@link PASSWORD}. */
export function seedUserFile (path: string, n: number, passwordHash: string): Promise<number> {
  const at = new Date().toISOString()
  const users = Array.from({ length: n }, (_, i) => ({
    identity: identityOf(i),
    tags: ['staff'],
    enabled: true,
    createdAt: at,
    updatedAt: at,
    passwordHash
  }))
  return writeDocument(path, { version: 1, users })
}
