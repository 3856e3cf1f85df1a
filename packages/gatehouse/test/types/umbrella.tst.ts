// The umbrella re-exports the packages: importing only `fastify-gatehouse`
// still brings every declaration merge with it.
import Fastify from 'fastify'
import { expect, test } from 'tstyche'
import {
  corsPlugin, type Avatar, type Session, type AuthOptions, type BasicOption, type BasicValidate, type BearerCase, type BearerOption,
  type ClaimPattern, type ClaimPatterns, type JwtAlgorithm, type JwtKeyResolver, type JwtRevocationCheck, type JwtVerifierOptions
} from 'fastify-gatehouse'

const app = Fastify()

test('the merges arrive through the umbrella', () => {
  app.get('/', { config: { authRule: 'admin', cors: false, csrf: 'always' } }, async (request) => {
    expect(request.scope.auth).type.toBe<Avatar | null>()
    expect(request.scope.session).type.toBe<Session | undefined>()
    return null
  })
  expect(app.register(corsPlugin, { allowOrigins: 1 })).type.toRaiseError()
})

test('issue 17\'s auth option types come through the umbrella', () => {
  const validate: BasicValidate = async (identity) => identity === 'alice' ? ['admin'] : null
  const basic: BasicOption = { validate }
  const bearer: BearerOption = { auth: (token) => token === 'ok' ? 'reader' : null }
  const isRevoked: JwtRevocationCheck = (claims) => claims.jti === 'revoked'
  const key: JwtKeyResolver = () => null
  const issuer: ClaimPatterns = ['https://a.example', /^https:\/\/b\./]
  const verifier: JwtVerifierOptions = { name: 'idp', algorithm: 'HS256' satisfies JwtAlgorithm, key, issuer, isRevoked }
  expect({ basic, bearer, bearerCase: 'exact' as BearerCase, jwt: [verifier] }).type.toBeAssignableTo<AuthOptions>()
  expect(1).type.not.toBeAssignableTo<ClaimPattern>()
})
