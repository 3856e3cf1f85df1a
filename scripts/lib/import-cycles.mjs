// The import cycles between the source files of packages/*/src, found with
// dependency-cruiser (D-TOOLING-29). Used by scripts/check-cycles.mjs.
import { existsSync, readdirSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import { cruise } from 'dependency-cruiser'

/** The packages/<name>/src folders under `root`, relative to it. */
function sourceFolders (root) {
  const base = join(root, 'packages')
  if (!existsSync(base)) return []
  return readdirSync(base)
    .filter((name) => existsSync(join(base, name, 'src')))
    .map((name) => ['packages', name, 'src'].join('/'))
}

/**
 * The import graph of packages/*\/src under `root`: `files` (paths relative
 * to root, with /), `imports` (file → the source files it imports) and
 * `unresolved` (local imports that name no file: a graph with holes would
 * miss cycles, so the caller refuses it).
 *
 * Type-only imports count: `import type` couples two files as much as any
 * import, even though it leaves no trace in the built JavaScript. Another
 * package's import by name follows its `gatehouse-src` export condition to
 * its src/index.ts, so a cycle across packages is found too.
 */
export async function importGraph (root) {
  const folders = sourceFolders(root)
  const files = []
  const imports = new Map()
  const unresolved = []
  if (folders.length === 0) return { files, imports, unresolved }
  const cwd = process.cwd()
  // dependency-cruiser reads paths relative to the working directory.
  process.chdir(root)
  let result
  try {
    result = await cruise(folders, {
      tsPreCompilationDeps: true,
      doNotFollow: { path: 'node_modules' },
      exclude: { path: '(^|/)(node_modules|dist)/' },
      enhancedResolveOptions: {
        conditionNames: ['gatehouse-src', 'import', 'default'],
        exportsFields: ['exports'],
        extensions: ['.ts', '.mts', '.js', '.mjs']
      }
    }, undefined, { tsConfig: { compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext' } } })
  } finally {
    process.chdir(cwd)
  }
  const inSource = (path) => /^packages\/[^/]+\/src\//.test(path)
  for (const module of result.output.modules) {
    const from = module.source.split(sep).join('/')
    if (!inSource(from)) continue
    files.push(from)
    const to = new Set()
    for (const dependency of module.dependencies) {
      const target = dependency.resolved.split(sep).join('/')
      if (dependency.couldNotResolve) {
        if (dependency.module.startsWith('.')) unresolved.push(`${from}: ${dependency.module}`)
      } else if (inSource(target)) {
        to.add(target)
      }
    }
    imports.set(from, [...to].sort())
  }
  files.sort()
  return { files, imports, unresolved, root: relative(cwd, root) || '.' }
}

/**
 * The groups of files that import each other, in a circle (the strongly
 * connected components of the graph with more than one file, or one file
 * importing itself), each with one cycle through it for the message.
 * Sorted, so that a group reads the same on every run.
 */
export function cycleGroups ({ files, imports }) {
  // Tarjan's algorithm, iterative: a deep import chain must not overflow the stack.
  let counter = 0
  const index = new Map()
  const low = new Map()
  const stack = []
  const onStack = new Set()
  const groups = []
  for (const start of files) {
    if (index.has(start)) continue
    const work = [{ file: start, next: 0 }]
    index.set(start, counter); low.set(start, counter); counter++
    stack.push(start); onStack.add(start)
    while (work.length > 0) {
      const frame = work.at(-1)
      const targets = imports.get(frame.file) ?? []
      if (frame.next < targets.length) {
        const target = targets[frame.next++]
        if (!index.has(target)) {
          index.set(target, counter); low.set(target, counter); counter++
          stack.push(target); onStack.add(target)
          work.push({ file: target, next: 0 })
        } else if (onStack.has(target)) {
          low.set(frame.file, Math.min(low.get(frame.file), index.get(target)))
        }
        continue
      }
      work.pop()
      if (work.length > 0) {
        const parent = work.at(-1).file
        low.set(parent, Math.min(low.get(parent), low.get(frame.file)))
      }
      if (low.get(frame.file) !== index.get(frame.file)) continue
      const members = []
      let member
      do {
        member = stack.pop()
        onStack.delete(member)
        members.push(member)
      } while (member !== frame.file)
      const selfImport = (imports.get(frame.file) ?? []).includes(frame.file)
      if (members.length > 1 || selfImport) {
        members.sort()
        groups.push({ files: members, cycle: oneCycle(members, imports) })
      }
    }
  }
  return groups.sort((a, b) => a.files[0].localeCompare(b.files[0]))
}

/** A shortest way from the group's first file back to itself, inside the group. */
function oneCycle (members, imports) {
  const inGroup = new Set(members)
  const start = members[0]
  const cameFrom = new Map()
  const queue = [start]
  while (queue.length > 0) {
    const file = queue.shift()
    for (const target of imports.get(file) ?? []) {
      if (!inGroup.has(target)) continue
      if (target === start) {
        const path = [start]
        for (let at = file; at !== start; at = cameFrom.get(at)) path.splice(1, 0, at)
        return [...path, start]
      }
      if (!cameFrom.has(target)) {
        cameFrom.set(target, file)
        queue.push(target)
      }
    }
  }
  return [start, start]
}

/**
 * Compares the groups found with `known` (`[{ name, files }]`, the cycles
 * allowed for now): returns the problems, one line each. A group that is
 * not listed fails, and so does a listed one that is no longer found as it
 * is written (removed or changed): the list stays exact, and it is emptied
 * as the cycles go.
 */
export function compareWithKnown (groups, known) {
  const key = (files) => [...files].sort().join('\n')
  const found = new Map(groups.map((group) => [key(group.files), group]))
  const problems = []
  for (const group of groups) {
    if (known.some((entry) => key(entry.files) === key(group.files))) continue
    problems.push(`an import cycle: ${group.cycle.join(' → ')}${group.files.length > group.cycle.length - 1 ? ` (files in the circle: ${group.files.join(', ')})` : ''}`)
  }
  for (const entry of known) {
    if (found.has(key(entry.files))) continue
    problems.push(`the known cycle "${entry.name}" (${entry.files.join(', ')}) is no longer found as listed: remove it from KNOWN_CYCLES in scripts/check-cycles.mjs (or correct its files)`)
  }
  return problems
}
