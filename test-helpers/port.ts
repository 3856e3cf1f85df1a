// A free TCP port on loopback, for a test that starts a server process of its
// own (a private redis-server): bound and released, good enough for tests.
import { createServer, type AddressInfo } from 'node:net'

export async function freePort (): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}
