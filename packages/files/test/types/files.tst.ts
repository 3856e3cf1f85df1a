// The file stores' types, and what their driver opens by role.
import { expect, test } from 'tstyche'
import type { ApiKeyStore, UserStore } from '@fastify-gatehouse/auth'
import { openStore, type OpenedStore } from '@fastify-gatehouse/core'
import { FileApiKeyStore, FileUserStore, filesDriver, type FileUserStoreOptions } from '@fastify-gatehouse/files'

test('the stores implement the store interfaces', () => {
  expect<FileUserStore>().type.toBeAssignableTo<UserStore>()
  expect<FileApiKeyStore>().type.toBeAssignableTo<ApiKeyStore>()
  expect({ watchInterval: 0, maxRecords: 10, scrypt: { N: 1024, r: 8, p: 1 } }).type.toBeAssignableTo<FileUserStoreOptions>()
  expect({ lastUsedFlushInterval: 10 }).type.not.toBeAssignableTo<FileUserStoreOptions>()
})

test('the driver opens each role as its interface', () => {
  expect(openStore(filesDriver, 'users', { dir: '.gatehouse' })).type.toBe<Promise<OpenedStore<UserStore>>>()
  expect(openStore(filesDriver, 'apiKeys', { dir: '.gatehouse' })).type.toBe<Promise<OpenedStore<ApiKeyStore>>>()
  expect(filesDriver.open.users).type.not.toBe<undefined>()
})
