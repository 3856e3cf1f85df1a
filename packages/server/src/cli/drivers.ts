// The store drivers load only when a command or a config file names one of
// their stores, so `gatehouse keys …` on a folder, a memory-store server and
// `import '@fastify-gatehouse/server'` start without ioredis, pg or kysely
// (packages/gatehouse/test/optional-drivers.test.ts checks it).

/** @fastify-gatehouse/redis (and ioredis), loaded on first use. */
export const redisPackage = async () => await import('@fastify-gatehouse/redis')

/** @fastify-gatehouse/postgres (and pg, kysely), loaded on first use. */
export const postgresPackage = async () => await import('@fastify-gatehouse/postgres')
