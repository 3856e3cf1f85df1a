import { cpSync, mkdirSync, readdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const PACKAGES = fileURLToPath(new URL('../../../', import.meta.url))

/**
 * Installs a second physical copy of the built workspace packages `folders`
 * (e.g. `['core', 'cors']`) in `dir/node_modules`, as a package manager does
 * for two versions side by side: each copy has its package.json (exports
 * pointing at dist only) and dist, and a node_modules of links to the
 * original's dependencies — except the Gatehouse packages also copied,
 * which link to their copies. A package not copied (core, when only cors
 * is) is shared with the original. Returns the URL of each copy's entry.
 */
export function installCopies (dir: string, folders: readonly string[]): Record<string, string> {
  const scope = join(dir, 'node_modules', '@fastify-gatehouse')
  const entries: Record<string, string> = {}
  for (const folder of folders) {
    const original = join(PACKAGES, folder)
    const copy = join(scope, folder)
    mkdirSync(copy, { recursive: true })
    cpSync(join(original, 'dist'), join(copy, 'dist'), { recursive: true })
    const manifest = JSON.parse(readFileSync(join(original, 'package.json'), 'utf8')) as Record<string, unknown>
    manifest.exports = { '.': { types: './dist/index.d.ts', default: './dist/index.js' }, './package.json': './package.json' }
    writeFileSync(join(copy, 'package.json'), JSON.stringify(manifest, null, 2))
    for (const name of dependencyNames(join(original, 'node_modules'))) {
      const link = join(copy, 'node_modules', name)
      mkdirSync(join(link, '..'), { recursive: true })
      const sibling = name.startsWith('@fastify-gatehouse/') ? name.slice('@fastify-gatehouse/'.length) : undefined
      symlinkSync(sibling !== undefined && folders.includes(sibling) ? join(scope, sibling) : realpathSync(join(original, 'node_modules', name)), link, 'dir')
    }
    entries[folder] = pathToFileURL(join(copy, 'dist', 'index.js')).href
  }
  return entries
}

function dependencyNames (modules: string): string[] {
  const names: string[] = []
  for (const entry of readdirSync(modules)) {
    if (entry.startsWith('.')) continue
    if (entry.startsWith('@')) {
      for (const inner of readdirSync(join(modules, entry))) names.push(`${entry}/${inner}`)
    } else {
      names.push(entry)
    }
  }
  return names
}
