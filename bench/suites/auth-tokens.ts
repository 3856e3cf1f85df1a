import { createHmac, createSign, generateKeyPairSync } from 'node:crypto'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

// Credentials shared by the load generator and the servers (separate processes).
export const SECRET = 'bench-secret-that-is-long-enough-for-hs256!'
export const BASIC = `Basic ${Buffer.from('alice:wonderland').toString('base64')}`
export const BEARER = 'static-bearer-token-0123456789'

const b64 = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url')

let sequence = 0
/** An HS256 token never sent before (unique jti), signed with a raw HMAC; from `iss` when given. */
export function freshHs256 (iss?: string): string {
  const head = b64({ alg: 'HS256', typ: 'JWT' })
  const body = b64({ ...(iss === undefined ? {} : { iss }), sub: 'alice', tags: ['reader'], exp: Math.floor(Date.now() / 1000) + 3600, jti: `${process.pid}-${sequence++}` })
  return `${head}.${body}.${createHmac('sha256', SECRET).update(`${head}.${body}`).digest('base64url')}`
}

/** `token` with its signature's bytes changed (same length): refused by the signature check. */
export function badSignature (token: string): string {
  const dot = token.lastIndexOf('.')
  const signature = Buffer.from(token.slice(dot + 1), 'base64url')
  signature[0] = signature[0]! ^ 0xff
  return `${token.slice(0, dot + 1)}${signature.toString('base64url')}`
}

export const REPEATED_HS256 = (() => {
  const head = b64({ alg: 'HS256', typ: 'JWT' })
  const body = b64({ sub: 'alice', tags: ['reader'], exp: 4_102_444_800 })
  return `${head}.${body}.${createHmac('sha256', SECRET).update(`${head}.${body}`).digest('base64url')}`
})()

// One RSA key for a whole run, written where the server processes find it.
const KEY_FILE = join(tmpdir(), `gatehouse-bench-rs256-${process.getuid?.() ?? 0}.json`)
function rsaKeys (): { publicKey: string, privateKey: string } {
  if (existsSync(KEY_FILE)) return JSON.parse(readFileSync(KEY_FILE, 'utf8'))
  const keys = generateKeyPairSync('rsa', { modulusLength: 2048, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } })
  writeFileSync(KEY_FILE, JSON.stringify(keys), { mode: 0o600 })
  return keys
}
export const RS256_PUBLIC = rsaKeys().publicKey

let pool: string[] | undefined
let next = 0
/** RS256 tokens from a pool of 2000 distinct ones, signed once on first use. */
export function pooledRs256 (): string {
  if (pool === undefined) {
    const { privateKey } = rsaKeys()
    const head = b64({ alg: 'RS256', typ: 'JWT' })
    pool = Array.from({ length: 2000 }, (_, i) => {
      const body = b64({ sub: 'alice', tags: ['reader'], exp: 4_102_444_800, jti: `rs-${i}` })
      return `${head}.${body}.${createSign('RSA-SHA256').update(`${head}.${body}`).sign(privateKey, 'base64url')}`
    })
  }
  return pool[next++ % pool.length]!
}
