// The logging component's public option types.
import Fastify from 'fastify'
import { expect, test } from 'tstyche'
import { loggingPlugin, type LoggingOptions } from '@fastify-gatehouse/logging'

const app = Fastify()

test('LoggingOptions and app.register(loggingPlugin, …)', () => {
  expect({ level: 'warn' as const, loggerName: 'access', includeQuery: true, includeHeaders: false }).type.toBeAssignableTo<LoggingOptions>()
  expect({ level: 'verbose' as const }).type.not.toBeAssignableTo<LoggingOptions>()
  app.register(loggingPlugin, { level: 'debug' })
  expect(app.register(loggingPlugin, { level: 'loud' })).type.toRaiseError()
  expect(app.register(loggingPlugin, { name: 'access' })).type.toRaiseError()
})
