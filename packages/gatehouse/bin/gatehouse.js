#!/usr/bin/env node
// `npx fastify-gatehouse …` and the `gatehouse` command of an install: the
// command line of @fastify-gatehouse/server, through its public entry (D-CLI-04).
import { runCli } from '@fastify-gatehouse/server'

process.exitCode = await runCli(process.argv.slice(2))
