// Moved to core (the session component bounds its store calls with it too,
// and may not import auth: DESIGN §1); kept here for auth's own importers.
export { HookTimeout, settleWithin } from '@fastify-gatehouse/core'
