// The umbrella re-exports the packages: importing only `fastify-gatehouse`
// still brings every declaration merge with it.
import Fastify from 'fastify'
import { expect, test } from 'tstyche'
import { corsPlugin, type Avatar, type Session } from 'fastify-gatehouse'

const app = Fastify()

test('the merges arrive through the umbrella', () => {
  app.get('/', { config: { authRule: 'admin', cors: false, csrf: 'always' } }, async (request) => {
    expect(request.scope.auth).type.toBe<Avatar | null>()
    expect(request.scope.session).type.toBe<Session | undefined>()
    return null
  })
  expect(app.register(corsPlugin, { allowOrigins: 1 })).type.toRaiseError()
})
