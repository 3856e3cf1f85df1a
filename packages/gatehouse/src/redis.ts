// fastify-gatehouse/redis: the Redis stores, apart from the main entry so
// that importing fastify-gatehouse never loads ioredis.
export * from '@fastify-gatehouse/redis'
