#!/usr/bin/env node
// Checks that `engines.node` tells the truth, on the installed tree:
// - each published package (not private) admits the lowest Node its own
//   `engines.node` admits, and so does every package of its production
//   dependency tree (dependencies and optional dependencies, recursively;
//   peers are the user's own install and left out);
// - every installed package (development tools included) admits the lowest
//   Node of the workspace root's `engines.node`.
// Run after `pnpm install`: `pnpm check-engines`. Exit 1 with one line per
// offending package and the path that brings it in. D-TOOLING-06; the two
// ranges are D-TOOLING-05 and D-TOOLING-07.
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import semver from 'semver'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')

function readJson (path) {
  return JSON.parse(readFileSync(path, 'utf8'))
}

/** The lowest Node version a range admits, or null for a range that is not one. */
function floorOf (range, where) {
  const min = semver.validRange(range) === null ? null : semver.minVersion(range)
  if (min === null) throw new Error(`${where}: engines.node ${JSON.stringify(range)} is not a semver range`)
  return min.version
}

/** Whether a package's `engines.node` (if any) admits `version`. */
function admits (pkg, version) {
  const range = pkg.engines?.node
  if (typeof range !== 'string' || range.trim() === '') return true
  return semver.satisfies(version, range, { includePrerelease: true })
}

// Node's lookup: the dependency `name` as seen from the package at `dir`.
function resolveFrom (dir, name) {
  for (let at = dir; ; at = dirname(at)) {
    const candidate = basename(at) === 'node_modules' ? join(at, name) : join(at, 'node_modules', name)
    if (existsSync(join(candidate, 'package.json'))) return realpathSync(candidate)
    if (dirname(at) === at) return null
  }
}

function workspacePackages () {
  const dirs = []
  for (const group of ['packages', 'examples']) {
    const base = join(ROOT, group)
    if (!existsSync(base)) continue
    for (const name of readdirSync(base)) {
      if (existsSync(join(base, name, 'package.json'))) dirs.push(join(base, name))
    }
  }
  if (existsSync(join(ROOT, 'bench', 'package.json'))) dirs.push(join(ROOT, 'bench'))
  return dirs
}

const problems = []

// Every package reachable from `dir` through `fields` of its manifest, and
// from those through their dependencies and optional dependencies (what a
// package manager installs for them), each once, with the chain that brings it.
function * tree (dir, fields, chain) {
  const seen = new Set()
  const walk = function * (at, kinds, path) {
    const manifest = readJson(join(at, 'package.json'))
    for (const kind of kinds) {
      for (const name of Object.keys(manifest[kind] ?? {})) {
        const found = resolveFrom(at, name)
        if (found === null) {
          if (kind !== 'optionalDependencies') problems.push(`${[...path, name].join(' > ')}: not installed (run pnpm install)`)
          continue
        }
        const dep = readJson(join(found, 'package.json'))
        const id = `${dep.name}@${dep.version}`
        if (seen.has(id)) continue
        seen.add(id)
        yield { dep, id, path: [...path, id] }
        yield * walk(found, ['dependencies', 'optionalDependencies'], [...path, id])
      }
    }
  }
  yield * walk(realpathSync(dir), fields, chain)
}

// 1. Published packages and their production trees: what a user installs.
for (const dir of workspacePackages()) {
  const pkg = readJson(join(dir, 'package.json'))
  if (pkg.private === true) continue
  const floor = floorOf(pkg.engines?.node ?? '*', pkg.name)
  for (const { dep, path } of tree(dir, ['dependencies', 'optionalDependencies'], [pkg.name])) {
    if (!admits(dep, floor)) problems.push(`${pkg.name} (node ${pkg.engines?.node}): ${path.at(-1)} wants node ${dep.engines.node}, via ${path.join(' > ')}`)
  }
}

// 2. Everything the workspace installs, development tools included, against
// the root's engines.node: what working on Gatehouse needs.
const rootPkg = readJson(join(ROOT, 'package.json'))
const devFloor = floorOf(rootPkg.engines?.node ?? '*', 'package.json')
const reported = new Set()
for (const dir of [ROOT, ...workspacePackages()]) {
  const name = readJson(join(dir, 'package.json')).name
  for (const { dep, id, path } of tree(dir, ['dependencies', 'devDependencies', 'optionalDependencies'], [name])) {
    if (admits(dep, devFloor) || reported.has(id)) continue
    reported.add(id)
    problems.push(`workspace (node ${rootPkg.engines?.node}): ${id} wants node ${dep.engines.node}, via ${path.join(' > ')}`)
  }
}

if (problems.length > 0) {
  for (const line of [...new Set(problems)].sort()) process.stderr.write(`check-engines: ${line}\n`)
  process.exit(1)
}
process.stdout.write(`check-engines: ok (published packages against their own engines.node; every installed package against the workspace's, node ${rootPkg.engines?.node})\n`)
