#!/usr/bin/env node
// The `gatehouse` command in a clone: `npx -y pnpm@10.34.9 -s gatehouse …`
// (the root script) or `node scripts/gatehouse.mjs …`. It runs the built
// CLI at once, and builds first only when a source it depends on changed
// since the last build (a check of file times, not a `tsc -b` on every
// call): D-CLI-25. The build's own output goes to stderr, so that stdout
// is the CLI's alone (`KEY=$(… keys issue …)`).
import { spawnSync } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { staleProjects } from './lib/stale-builds.mjs'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const CLI_PROJECT = 'packages/server'

const stale = staleProjects(ROOT, CLI_PROJECT)
if (stale.length > 0) {
  process.stderr.write(`gatehouse: building first, sources changed in ${stale.join(', ')} (tsc -b ${CLI_PROJECT})\n`)
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc')
  const build = spawnSync(process.execPath, [tsc, '-b', CLI_PROJECT], { cwd: ROOT, stdio: ['ignore', 2, 2] })
  if (build.status !== 0) {
    process.stderr.write(`gatehouse: the build failed (${build.error?.message ?? `tsc exited ${build.status ?? build.signal}`}); fix it, or run \`npx -y pnpm@10.34.9 build\` to see it again\n`)
    process.exit(1)
  }
}

// The server's bin reads process.argv.slice(2): the same words as ours.
await import(pathToFileURL(join(ROOT, CLI_PROJECT, 'bin', 'gatehouse.js')).href)
