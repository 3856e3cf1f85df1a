// Whether `tsc -b` has work to do for a project and the projects it
// references, answered from file times alone: a project is stale when its
// tsconfig.tsbuildinfo is missing or older than its tsconfig.json, the
// shared tsconfig.base.json, or any file or folder under its `include`
// folders (a folder's time moves when a file in it is added or removed).
// tsc -b renews the tsbuildinfo's time whenever it looked at newer inputs,
// so after a build the answer is "fresh" again. A few hundred stat calls:
// milliseconds, where `tsc -b` with nothing to do takes half a second.
// D-CLI-25.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'

function newestUnder (path) {
  const stat = statSync(path, { throwIfNoEntry: false })
  if (stat === undefined) return 0
  let newest = stat.mtimeMs
  if (stat.isDirectory()) {
    for (const name of readdirSync(path)) newest = Math.max(newest, newestUnder(join(path, name)))
  }
  return newest
}

function readConfig (dir) {
  return JSON.parse(readFileSync(join(dir, 'tsconfig.json'), 'utf8'))
}

/** The project at `dir` and every project it references, transitively, in no particular order. */
function projectsFrom (dir, seen = new Set()) {
  if (seen.has(dir)) return seen
  seen.add(dir)
  for (const { path } of readConfig(dir).references ?? []) projectsFrom(resolve(dir, path), seen)
  return seen
}

/** The projects (paths relative to `root`) that `tsc -b <project>` would rebuild, or [] when all are current. */
export function staleProjects (root, project) {
  const base = statSync(join(root, 'tsconfig.base.json'), { throwIfNoEntry: false })?.mtimeMs ?? 0
  const stale = []
  for (const dir of projectsFrom(resolve(root, project))) {
    const buildInfo = join(dir, 'tsconfig.tsbuildinfo')
    const built = existsSync(buildInfo) ? statSync(buildInfo).mtimeMs : -1
    const inputs = [join(dir, 'tsconfig.json'), ...(readConfig(dir).include ?? ['src']).map((folder) => join(dir, folder))]
    const newest = Math.max(base, ...inputs.map(newestUnder))
    if (built < newest) stale.push(relative(root, dir))
  }
  return stale.sort()
}
