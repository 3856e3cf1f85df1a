// The errors component's public option types.
import Fastify from 'fastify'
import { expect, test } from 'tstyche'
import { errorsPlugin, type ErrorsOptions } from '@fastify-gatehouse/errors'

const app = Fastify()

test('ErrorsOptions and app.register(errorsPlugin, …)', () => {
  expect({ debug: true, login: true, loginPage: '/login', realm: 'shop', notFound: false }).type.toBeAssignableTo<ErrorsOptions>()
  expect({ debug: 'yes' }).type.not.toBeAssignableTo<ErrorsOptions>()
  app.register(errorsPlugin, { login: true })
  expect(app.register(errorsPlugin, { loginUrl: '/login' })).type.toRaiseError()
})
