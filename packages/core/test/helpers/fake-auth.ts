import { Avatar, defineComponent, type Component } from '@fastify-gatehouse/core'

/**
 * A components list holding an auth stand-in at order 400: the header
 * `x-user: name:tag1,tag2` makes that caller; `x-authenticated-at: <ms>`
 * sets its `authenticatedAt`.
 */
export function fakeAuthComponents (): Component[] {
  return [defineComponent({
    name: 'fake-auth',
    order: 400,
    default: true,
    plugin: async (app) => {
      app.addHook('onRequest', async (req) => {
        const header = req.headers['x-user']
        if (typeof header === 'string') {
          const [identity = '', tags = ''] = header.split(':')
          const at = req.headers['x-authenticated-at']
          req.scope.auth = new Avatar(identity, { tags, backend: 'test', authenticatedAt: typeof at === 'string' ? Number(at) : null })
        }
      })
    }
  })]
}
