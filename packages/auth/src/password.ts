import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto'
import { GATEHOUSE_AUTH_INVALID_CONFIG, GATEHOUSE_AUTH_INVALID_PASSWORD_HASH } from './errors.js'

/** scrypt cost parameters. */
export interface ScryptParams {
  /** CPU/memory cost, a power of two. Default: 32768 (2^15). */
  N: number
  /** Block size. Default: 8. */
  r: number
  /** Parallelism. Default: 1. */
  p: number
}

/**
 * Defaults: N=2^15, r=8, p=1 — 32 MiB and tens of milliseconds per check.
 * OWASP suggests N=2^17 (128 MiB); the lower default bounds the memory of
 * concurrent logins. Stored hashes carry their parameters, so raising N
 * later only affects new hashes.
 */
export const DEFAULT_SCRYPT: Readonly<ScryptParams> = Object.freeze({ N: 2 ** 15, r: 8, p: 1 })

const KEY_LENGTH = 32
const SALT_LENGTH = 16
/** What a stored password hash looks like: `scrypt$N,r,p$salt$hash` (base64url). */
export const PASSWORD_HASH_PATTERN = '^scrypt\\$(\\d+),(\\d+),(\\d+)\\$([A-Za-z0-9_-]{16,})\\$([A-Za-z0-9_-]{32,})$'
/** What an error says a password hash must be, and where to get one. */
export const PASSWORD_HASH_HINT = 'expected scrypt$N,r,p$salt$hash; make one with `gatehouse users hash`'
const FORMAT = new RegExp(PASSWORD_HASH_PATTERN)

function scrypt (password: string, salt: Buffer, length: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scryptCallback(password.normalize('NFC'), salt, length, options, (err, key) => { err === null ? resolve(key) : reject(err) })
  })
}

function checkParams ({ N, r, p }: ScryptParams): void {
  if (!Number.isInteger(N) || N < 2 || N > 2 ** 20 || (N & (N - 1)) !== 0) throw new GATEHOUSE_AUTH_INVALID_PASSWORD_HASH('N must be a power of two from 2 to 2^20')
  if (!Number.isInteger(r) || r < 1 || r > 32) throw new GATEHOUSE_AUTH_INVALID_PASSWORD_HASH('r must be from 1 to 32')
  if (!Number.isInteger(p) || p < 1 || p > 16) throw new GATEHOUSE_AUTH_INVALID_PASSWORD_HASH('p must be from 1 to 16')
}

function options ({ N, r, p }: ScryptParams): ScryptOptions {
  return { N, r, p, maxmem: 256 * N * r + 1024 * 1024 }
}

/** A parsed `scrypt$N,r,p$salt$hash` string. */
export interface PasswordHash {
  readonly params: ScryptParams
  readonly salt: Buffer
  readonly key: Buffer
}

/** Parses a stored hash; throws `GATEHOUSE_AUTH_INVALID_PASSWORD_HASH` when malformed. */
export function parsePasswordHash (encoded: string): PasswordHash {
  const match = typeof encoded === 'string' ? FORMAT.exec(encoded) : null
  if (match === null) throw new GATEHOUSE_AUTH_INVALID_PASSWORD_HASH('expected scrypt$N,r,p$salt$hash')
  const params = { N: Number(match[1]), r: Number(match[2]), p: Number(match[3]) }
  checkParams(params)
  return { params, salt: Buffer.from(match[4]!, 'base64url'), key: Buffer.from(match[5]!, 'base64url') }
}

/** Hashes `password` with a fresh salt: `scrypt$N,r,p$salt$hash` (base64url). */
export async function hashPassword (password: string, params: ScryptParams = DEFAULT_SCRYPT): Promise<string> {
  return await hashPasswordWithSalt(password, params, randomBytes(SALT_LENGTH))
}

/**
 * @internal Hashes `password` with the salt given (16 bytes): only for a
 * salt that must be the same on several instances (configured users).
 */
export async function hashPasswordWithSalt (password: string, params: ScryptParams, salt: Buffer): Promise<string> {
  if (typeof password !== 'string' || password === '') throw new GATEHOUSE_AUTH_INVALID_CONFIG('password', 'must be a non-empty string')
  checkParams(params)
  if (salt.length !== SALT_LENGTH) throw new GATEHOUSE_AUTH_INVALID_CONFIG('salt', `must be ${SALT_LENGTH} bytes`)
  const key = await scrypt(password, salt, KEY_LENGTH, options(params))
  return `scrypt$${params.N},${params.r},${params.p}$${salt.toString('base64url')}$${key.toString('base64url')}`
}

/** Whether `password` matches `hash`; the parameters are read back from the hash. Constant-time compare. */
export async function verifyPassword (password: string, hash: PasswordHash): Promise<boolean> {
  const key = await scrypt(password, hash.salt, hash.key.length, options(hash.params))
  return timingSafeEqual(key, hash.key)
}

const dummies = new Map<string, Promise<PasswordHash>>()
/**
 * Spends the same work as checking a real password hashed with `params`
 * (default: the default parameters), then answers false: unknown users cost
 * what known ones do.
 */
export async function verifyAgainstDummy (password: string, params: ScryptParams = DEFAULT_SCRYPT): Promise<false> {
  const id = `${params.N},${params.r},${params.p}`
  let dummy = dummies.get(id)
  if (dummy === undefined) {
    dummy = hashPassword('gatehouse-dummy-password', params).then(parsePasswordHash)
    dummies.set(id, dummy)
  }
  await verifyPassword(password, await dummy)
  return false
}
