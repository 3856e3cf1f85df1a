// fastify-gatehouse/postgres: the PostgreSQL stores and migrations, apart
// from the main entry so that importing fastify-gatehouse never loads pg or
// kysely (issue 15: the driver loads only when PostgreSQL is configured).
export * from '@fastify-gatehouse/postgres'
