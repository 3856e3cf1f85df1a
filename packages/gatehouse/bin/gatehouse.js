#!/usr/bin/env node
// The `gatehouse` command of an install (node_modules/.bin/gatehouse): the
// command line of @fastify-gatehouse/server, through its public entry (D-CLI-04).
import { runCli } from '@fastify-gatehouse/server'

process.exitCode = await runCli(process.argv.slice(2))
