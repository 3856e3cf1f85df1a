#!/usr/bin/env node
// Fails on an import cycle between the source files of packages/*/src
// (type-only imports included), found by dependency-cruiser:
// `pnpm check-cycles`, part of `pnpm test`. D-TOOLING-29, D-TOOLING-30.
//
// KNOWN_CYCLES lists, by name, the cycles allowed for now, each one being
// removed by work in flight. The list must stay exact: a cycle not on it
// fails, and so does an entry that no longer matches a cycle (delete the
// entry when its cycle goes). The goal is an empty list.
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { compareWithKnown, cycleGroups, importGraph } from './lib/import-cycles.mjs'

const KNOWN_CYCLES = []

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')

const graph = await importGraph(ROOT)
const problems = graph.unresolved.map((line) => `an import that names no file: ${line}`)
if (graph.files.length === 0) problems.push('no source file found under packages/*/src')
const groups = cycleGroups(graph)
problems.push(...compareWithKnown(groups, KNOWN_CYCLES))
if (problems.length > 0) {
  for (const line of problems) process.stderr.write(`check-cycles: ${line}\n`)
  process.exit(1)
}
const edges = [...graph.imports.values()].reduce((n, targets) => n + targets.length, 0)
const known = KNOWN_CYCLES.length === 0 ? 'none known' : `${KNOWN_CYCLES.length} known, being removed: ${KNOWN_CYCLES.map(({ name }) => name).join(', ')}`
process.stdout.write(`check-cycles: ok (${graph.files.length} source files, ${edges} imports between them; cycles: ${known})\n`)
