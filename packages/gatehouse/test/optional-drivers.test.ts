import { test } from 'tap'
import { spawn } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { resolutionsOf } from './helpers/resolutions.js'

const ioredis = (lines: string[] = []): string[] => lines.filter((line) => /(^ioredis |\/ioredis\/|^@fastify-gatehouse\/redis )/.test(line))

test('importing the umbrella or the server package does not load ioredis', async (t) => {
  const loaded = await resolutionsOf(t.testdir({}), ['fastify-gatehouse', '@fastify-gatehouse/server', 'fastify-gatehouse/redis'])
  t.ok((loaded.get('fastify-gatehouse') ?? []).some((line) => line.startsWith('@fastify-gatehouse/server ')), 'the log sees the umbrella\'s own imports')
  t.same(ioredis(loaded.get('fastify-gatehouse')), [], 'fastify-gatehouse loads neither @fastify-gatehouse/redis nor ioredis')
  t.same(ioredis(loaded.get('@fastify-gatehouse/server')), [], '@fastify-gatehouse/server neither')
  // The control: the same log does see ioredis when the Redis stores are imported.
  t.ok(ioredis(loaded.get('fastify-gatehouse/redis')).some((line) => line.startsWith('ioredis ')), 'fastify-gatehouse/redis loads ioredis')
})

test('fastify-gatehouse/redis exports the Redis stores', async (t) => {
  const redis = await import('fastify-gatehouse/redis')
  t.type(redis.RedisSessionStore, 'function')
  t.type(redis.RedisLockoutStore, 'function')
  t.type(redis.checkRedisUrl, 'function')
})

const postgresDriver = (lines: string[] = []): string[] => lines.filter((line) => /(^pg |^kysely |\/node_modules\/(pg|kysely)\/|^@fastify-gatehouse\/postgres )/.test(line))

test('importing the umbrella or the server package does not load pg or kysely', async (t) => {
  const loaded = await resolutionsOf(t.testdir({}), ['fastify-gatehouse', '@fastify-gatehouse/server', 'fastify-gatehouse/postgres'])
  t.same(postgresDriver(loaded.get('fastify-gatehouse')), [], 'fastify-gatehouse loads neither @fastify-gatehouse/postgres nor pg')
  t.same(postgresDriver(loaded.get('@fastify-gatehouse/server')), [], '@fastify-gatehouse/server neither')
  const control = postgresDriver(loaded.get('fastify-gatehouse/postgres'))
  t.ok(control.some((line) => line.startsWith('pg ')), 'fastify-gatehouse/postgres loads pg')
  t.ok(control.some((line) => line.startsWith('kysely ')), 'and kysely')
})

test('fastify-gatehouse/postgres exports the migrations', async (t) => {
  const postgres = await import('fastify-gatehouse/postgres')
  t.type(postgres.migrate, 'function')
  t.type(postgres.migrationStatusOf, 'function')
  t.type(postgres.checkPostgresUrl, 'function')
})

const PRELOAD = fileURLToPath(new URL('./fixtures/record-resolutions.mjs', import.meta.url))
const BIN = fileURLToPath(new URL('../bin/gatehouse.js', import.meta.url))

/** Runs the built `gatehouse` bin with the resolution log; resolves with its exit code and every resolution it made. */
async function binResolutions (dir: string, args: string[]): Promise<{ code: number | null, lines: string[] }> {
  const log = join(dir, `resolutions-${args.slice(0, 2).join('-')}.log`)
  const env: NodeJS.ProcessEnv = { ...process.env, GATEHOUSE_RESOLUTION_LOG: log }
  delete env.NODE_OPTIONS
  delete env.GATEHOUSE_DATABASE_URL
  const child = spawn(process.execPath, ['--import', PRELOAD, BIN, ...args], { env, cwd: dir, stdio: 'ignore' })
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
  return { code, lines: (await readFile(log, 'utf8')).split('\n').filter((line) => line !== '') }
}

test('`gatehouse keys` and `users` on a folder load neither pg, kysely nor ioredis; `gatehouse migrate` loads pg', async (t) => {
  const dir = t.testdir({})
  // `keys issue` starts the store the others read (a folder with keys.json is a store, D-CLI-05).
  for (const args of [['keys', 'issue', '--label', 'ci', '--store', 'store'], ['keys', 'list', '--store', 'store'], ['users', 'list', '--store', 'store']]) {
    const { code, lines } = await binResolutions(dir, args)
    t.equal(code, 0, args.join(' '))
    t.ok(lines.some((line) => line.startsWith('@fastify-gatehouse/server ')), 'the log sees the CLI load')
    t.same(postgresDriver(lines), [], `${args.join(' ')}: no pg, no kysely`)
    t.same(ioredis(lines), [], `${args.join(' ')}: no ioredis`)
  }
  // Port 1 refuses at once: the command fails, after loading the driver.
  const { code, lines } = await binResolutions(dir, ['migrate', 'status', '--database', 'postgres://127.0.0.1:1/x'])
  t.equal(code, 1)
  t.ok(postgresDriver(lines).some((line) => line.startsWith('pg ')), 'the control: migrate loads pg')
})
