// fastify-gatehouse/redis: the Redis stores, apart from the main entry so
// that importing fastify-gatehouse never loads ioredis. D-REDIS-07.
export * from '@fastify-gatehouse/redis'
