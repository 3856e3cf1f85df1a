import { Type } from '@sinclair/typebox'

/**
 * The scrypt parameters of new password hashes as a store driver's
 * `store:` section gives them (`scrypt: { N: 32768, r: 8, p: 1 }`); the user
 * stores check the ranges themselves (`hashPassword`), so the schema checks
 * the shape only.
 */
export const scryptParamsSchema = Type.Object({
  N: Type.Integer({ minimum: 2 }),
  r: Type.Integer({ minimum: 1 }),
  p: Type.Integer({ minimum: 1 })
}, { additionalProperties: false })
