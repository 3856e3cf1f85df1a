// The wellknown component's public option types.
import Fastify from 'fastify'
import { expect, test } from 'tstyche'
import { Redirect } from '@fastify-gatehouse/core'
import { wellknownPlugin, type WellKnownOptions } from '@fastify-gatehouse/wellknown'

const app = Fastify()

test('WellKnownOptions: strings, objects, redirects and functions', () => {
  expect({
    documents: {
      'security.txt': 'Contact: mailto:security@example.com',
      'change-password': new Redirect('/account/password'),
      'openid-configuration': { issuer: 'https://example.com' },
      dynamic: async () => ({ now: Date.now() })
    }
  }).type.toBeAssignableTo<WellKnownOptions>()
  expect({ documents: { 'security.txt': 42 } }).type.not.toBeAssignableTo<WellKnownOptions>()
  app.register(wellknownPlugin, { documents: { 'security.txt': 'Contact: mailto:a@example.com' } })
  expect(app.register(wellknownPlugin, { docs: {} })).type.toRaiseError()
})
