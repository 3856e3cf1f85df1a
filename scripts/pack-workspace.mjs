#!/usr/bin/env node
// Packs every publishable package of the workspace into a folder, the way
// `pnpm publish` would (pnpm pack turns `workspace:*` and `catalog:` into
// versions; nothing is rewritten by hand), and prints how to install the
// tarballs into an app with npm and with pnpm. Until the packages are on npm
// this is how an app uses them (README "Install"; D-TOOLING-24).
//
//   npx -y pnpm@10.34.9 pack-workspace [--out <dir>]    default ./packed (git-ignored)
//
// It builds first (`tsc -b`: what ships is dist/). scripts/check-pack.mjs
// runs the very commands printed here in a scratch app (D-TOOLING-25).
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { tarballManifest } from './lib/tarball.mjs'

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
export const PNPM = 'pnpm@10.34.9' // keep in step with packageManager in package.json (D-TOOLING-02)
const OVERRIDES_FILE = 'pnpm-overrides.json'

/** The packages pnpm publish would publish: packages/* that are not private. */
export function publishablePackages (root = ROOT) {
  const base = join(root, 'packages')
  return readdirSync(base)
    .filter((dir) => existsSync(join(base, dir, 'package.json')))
    .map((dir) => ({ dir: join(base, dir), manifest: JSON.parse(readFileSync(join(base, dir, 'package.json'), 'utf8')) }))
    .filter(({ manifest }) => manifest.private !== true)
    .sort((a, b) => a.manifest.name.localeCompare(b.manifest.name))
}

/**
 * How to run pnpm from a script: under `pnpm run`, npm_execpath is pnpm's
 * own entry (no second npx start-up); run alone, the pinned pnpm through npx.
 */
export function pnpmCommand (env = process.env) {
  const execPath = env.npm_execpath ?? ''
  if (/^pnpm\.c?js$/.test(basename(execPath)) && (env.npm_config_user_agent ?? '').startsWith(`${PNPM.replace('@', '/')} `)) {
    return [process.execPath, execPath]
  }
  return ['npx', '-y', PNPM]
}

function run (argv, options) {
  const result = spawnSync(argv[0], argv.slice(1), { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...options })
  if (result.error !== undefined) throw new Error(`${argv.join(' ')}: ${result.error.message}`)
  if (result.status !== 0) {
    throw new Error(`${argv.join(' ')} exited ${result.status ?? result.signal}\n${result.stderr ?? ''}`.trimEnd())
  }
  return result
}

/**
 * Builds, then packs each publishable package into `outDir` (old tarballs
 * there are removed first). Answers `{ name, version, file }` per package.
 */
export function packWorkspace ({ outDir, root = ROOT, log = (line) => process.stderr.write(`${line}\n`) }) {
  const packages = publishablePackages(root)
  log('building (tsc -b)')
  run([process.execPath, join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-b'], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] })

  mkdirSync(outDir, { recursive: true })
  for (const name of readdirSync(outDir)) {
    if (name.endsWith('.tgz') || name === OVERRIDES_FILE) rmSync(join(outDir, name))
  }
  log(`packing ${packages.length} packages into ${outDir}`)
  const filters = packages.flatMap(({ manifest }) => ['--filter', manifest.name])
  const [command, ...prefix] = pnpmCommand()
  const { stdout } = run([command, ...prefix, ...filters, '-r', 'pack', '--pack-destination', outDir, '--json'], { cwd: root })
  const reports = JSON.parse(stdout)
  const packed = (Array.isArray(reports) ? reports : [reports]).map(({ name, version, filename }) => ({ name, version, file: resolve(outDir, filename) }))
  const missing = packages.filter(({ manifest }) => !packed.some(({ name }) => name === manifest.name))
  if (missing.length > 0 || packed.length !== packages.length) {
    throw new Error(`pnpm pack made ${packed.length} tarballs for ${packages.length} packages (missing: ${missing.map(({ manifest }) => manifest.name).join(', ') || 'none'})`)
  }
  for (const { file } of packed) assertNoWorkspaceRanges(file)
  packed.sort((a, b) => a.name.localeCompare(b.name))
  writeFileSync(join(outDir, OVERRIDES_FILE), `${JSON.stringify(pnpmOverrides(packed), null, 2)}\n`)
  return packed
}

// A `workspace:` or `catalog:` range left in a tarball cannot be installed anywhere.
function assertNoWorkspaceRanges (file) {
  const manifest = tarballManifest(file)
  for (const field of ['dependencies', 'optionalDependencies', 'peerDependencies']) {
    for (const [name, range] of Object.entries(manifest[field] ?? {})) {
      if (/^(workspace|catalog):/.test(range)) throw new Error(`${basename(file)}: ${field}.${name} is still ${range}`)
    }
  }
}

/** The `pnpm.overrides` of an app: each package name at its tarball. */
export function pnpmOverrides (packed) {
  return Object.fromEntries(packed.map(({ name, file }) => [name, `file:${file}`]))
}

/**
 * The install lines for an app, as README "Install" shows them (with
 * /path/to/gatehouse/packed for `packedDir`; check-pack.mjs compares and
 * runs them). npm: every tarball at once, so that the packages' own
 * `@fastify-gatehouse/*` dependencies are found among the app's. pnpm
 * resolves those from the registry, where they are not yet, unless
 * `pnpm.overrides` names each tarball (D-TOOLING-24): `npm pkg set --json`
 * writes them into the app's package.json, then pnpm adds by name.
 */
export function installLines (packedDir) {
  const dir = shellWord(packedDir)
  return {
    npm: [`npm install --no-audit --no-fund ${dir}/*.tgz fastify@5`],
    pnpm: [
      `npm pkg set --json "pnpm.overrides=$(cat ${dir}/${OVERRIDES_FILE})"`,
      `npx -y ${PNPM} add fastify-gatehouse fastify@5`
    ]
  }
}

/** A word a POSIX shell reads back as itself (a path with spaces is quoted). */
function shellWord (word) {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`
}

function parseArgs (argv) {
  let outDir = join(ROOT, 'packed')
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--out') {
      if (argv[i + 1] === undefined) throw new Error('--out needs a folder')
      outDir = resolve(argv[++i])
    } else if (argv[i] === '--help' || argv[i] === '-h') return null
    else throw new Error(`unknown argument ${JSON.stringify(argv[i])}; usage: pack-workspace [--out <dir>]`)
  }
  return { outDir }
}

async function main () {
  const args = parseArgs(process.argv.slice(2))
  if (args === null) {
    process.stdout.write('usage: npx -y pnpm@10.34.9 pack-workspace [--out <dir>]   (default ./packed)\n')
    return
  }
  const packed = packWorkspace(args)
  const { npm, pnpm } = installLines(args.outDir)
  const lines = [
    `Packed ${packed.length} packages into ${args.outDir}:`,
    ...packed.map(({ name, version, file }) => `  ${name}@${version}  ${basename(file)}`),
    '',
    'In your app (a folder with a package.json), with npm (every tarball at once,',
    'so that the packages find each other):',
    '',
    ...npm.map((line) => `  ${line}`),
    '',
    'With pnpm (first pnpm.overrides, which point each package name at its',
    'tarball; then add the packages you import by name):',
    '',
    ...pnpm.map((line) => `  ${line}`),
    '',
    "Your app's package.json then names the tarballs by their absolute paths:",
    'keep this folder where it is. The CLI of the install: `node_modules/.bin/gatehouse --help`',
    `(or \`npx -y ${PNPM} exec gatehouse --help\`). Never \`npx gatehouse\`: a package of that`,
    'name on npm is not ours, and npx would fetch it.'
  ]
  process.stdout.write(`${lines.join('\n')}\n`)
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((err) => {
    process.stderr.write(`pack-workspace: ${err.message}\n`)
    process.exitCode = 1
  })
}
