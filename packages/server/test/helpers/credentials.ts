import { createHmac } from 'node:crypto'

/** An RFC 7617 Basic Authorization header value. */
export const basic = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`

/** An HS256 JWT of `claims`, signed with `secret`. */
export function hs256 (claims: object, secret: string): string {
  const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url')
  const input = `${part({ alg: 'HS256' })}.${part(claims)}`
  return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`
}
