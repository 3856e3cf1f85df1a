#!/usr/bin/env node
// `pnpm test:pack` (a step of `pnpm test`, so of CI): packs every publishable
// package as pack-workspace.mjs does, checks what each tarball ships, then
// installs the tarballs into two scratch apps in a temporary folder, one with
// npm and one with pnpm, running README "Install"'s own lines, and runs
// pack-smoke.mjs and the installed `gatehouse` bin in each. Dependencies such
// as fastify come from the npm registry (or its cache: --prefer-offline).
// One `ok`/`not ok` line per check, a summary, exit 1 on any failure; the
// scratch folder is kept when something failed. D-TOOLING-25.
import { spawnSync } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { installLines, PNPM, packWorkspace, publishablePackages, ROOT } from './pack-workspace.mjs'
import { readTarball } from './lib/tarball.mjs'

// The README's lines name the packed folder so; the check runs them on its own.
const README_PACKED = '/path/to/gatehouse/packed'
// A hang ceiling per command, not a speed target: a cold cache and a busy machine take long.
const COMMAND_CEILING_MS = Number(process.env.GATEHOUSE_TEST_CEILING_MS ?? 180_000)
const REPOSITORY = 'https://github.com/fastify-gatehouse/gatehouse'

const started = performance.now()
const results = []
function report (ok, name, detail = '') {
  results.push(ok)
  const line = `${ok ? 'ok' : 'not ok'} ${results.length} - ${name}`
  process.stdout.write(`${line}${!ok && detail !== '' ? `\n${detail.trimEnd().split('\n').map((l) => `  # ${l}`).join('\n')}` : ''}\n`)
  return ok
}

// The scratch apps see what a user's shell sees: no tap or tsx loader, no
// source condition (which would point at the shipped .ts files), no pnpm-run variables.
function cleanEnv () {
  const env = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (key === 'NODE_OPTIONS' || key.startsWith('npm_') || key.startsWith('PNPM_') || key.startsWith('TAP')) continue
    env[key] = value
  }
  return env
}

function sh (line, cwd) {
  const result = spawnSync('sh', ['-c', line], { cwd, env: cleanEnv(), encoding: 'utf8', timeout: COMMAND_CEILING_MS, killSignal: 'SIGKILL', maxBuffer: 64 * 1024 * 1024 })
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`
  if (result.error !== undefined) return { ok: false, output: `${line}: ${result.error.message}\n${output}` }
  if (result.status !== 0) return { ok: false, output: `${line}: exit ${result.status ?? result.signal}\n${output}` }
  return { ok: true, output: result.stdout }
}

function step (name, line, cwd, expect = () => null) {
  const { ok, output } = sh(line, cwd)
  const problem = ok ? expect(output) : output
  return report(problem === null, name, problem ?? '')
}

// What a published package must carry, read from the tarball itself.
function tarballProblems (file, dir) {
  const files = readTarball(file)
  const manifest = JSON.parse(files.get('package/package.json').toString('utf8'))
  const problems = []
  const ships = (path) => files.has(`package/${path.replace(/^\.\//, '')}`)
  for (const name of ['LICENSE', 'README.md', 'CHANGELOG.md']) if (!ships(name)) problems.push(`${name} is not in the tarball`)
  if (ships('LICENSE') && !files.get('package/LICENSE').equals(readFileSync(join(ROOT, 'LICENSE')))) problems.push('LICENSE differs from the root LICENSE')
  if (manifest.license !== 'MIT') problems.push(`license is ${JSON.stringify(manifest.license)}`)
  const directory = `packages/${dir.split(/[\\/]/).pop()}`
  if (manifest.repository?.url !== `git+${REPOSITORY}.git` || manifest.repository?.directory !== directory) {
    problems.push(`repository is ${JSON.stringify(manifest.repository)}, not { url: git+${REPOSITORY}.git, directory: ${directory} }`)
  }
  if (manifest.homepage !== `${REPOSITORY}/tree/main/${directory}#readme`) problems.push(`homepage is ${JSON.stringify(manifest.homepage)}`)
  if (manifest.bugs?.url !== `${REPOSITORY}/issues`) problems.push(`bugs is ${JSON.stringify(manifest.bugs)}`)
  if (typeof manifest.description !== 'string' || manifest.description === '') problems.push('no description')
  if (typeof manifest.engines?.node !== 'string') problems.push('no engines.node')
  // Every entry point a user's import or bin reaches is in the tarball (a pack before a build would lack dist/).
  const targets = [manifest.main, manifest.types, ...Object.values(manifest.bin ?? {})]
  for (const entry of Object.values(manifest.exports ?? {})) {
    if (typeof entry === 'string') targets.push(entry)
    else targets.push(entry.types, entry.default)
  }
  for (const target of targets.filter((t) => typeof t === 'string')) if (!ships(target)) problems.push(`${target} is not in the tarball`)
  // The registry shows README.md alone: a relative link there leads nowhere.
  const readme = files.get('package/README.md')?.toString('utf8') ?? ''
  for (const [, target] of readme.matchAll(/\]\(([^)\s]+)[^)]*\)/g)) {
    if (!/^(https?:|mailto:|#)/.test(target)) problems.push(`README.md links to ${target}, which does not work on the registry's page`)
  }
  return problems
}

// README "Install" must show the lines this check runs, with README_PACKED for the folder.
function readmeProblems (lines) {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
  return [...lines.npm, ...lines.pnpm].filter((line) => !readme.includes(line)).map((line) => `README.md does not show: ${line}`)
}

function smokeApp (label, dir, installs, binLine) {
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name: `gatehouse-pack-smoke-${label}`, private: true, type: 'module' }, null, 2)}\n`)
  for (const [name, line] of installs) if (!step(`${label}: ${name}`, line, dir)) return
  copyFileSync(join(ROOT, 'scripts', 'pack-smoke.mjs'), join(dir, 'pack-smoke.mjs'))
  step(`${label}: smoke test (imports, Basic, AppServer login)`, 'node pack-smoke.mjs', dir)
  step(`${label}: ${binLine}`, binLine, dir, (out) => /^gatehouse: run a Gatehouse server/.test(out) ? null : `unexpected --help output:\n${out}`)
}

function main () {
  const scratch = mkdtempSync(join(tmpdir(), 'gatehouse-pack-'))
  const packedDir = join(scratch, 'packed')
  let packed = []
  try {
    packed = packWorkspace({ outDir: packedDir, log: (line) => process.stdout.write(`# ${line}\n`) })
    report(true, `pnpm pack: ${packed.length} tarballs`)
  } catch (err) {
    report(false, 'pnpm pack', err.message)
  }
  const dirs = new Map(publishablePackages().map(({ dir, manifest }) => [manifest.name, dir]))
  for (const { name, file } of packed) {
    const problems = tarballProblems(file, dirs.get(name))
    report(problems.length === 0, `${name}: what the tarball ships`, problems.join('\n'))
  }
  const readmeLines = installLines(README_PACKED)
  const problems = readmeProblems(readmeLines)
  report(problems.length === 0, 'README "Install" shows the lines run here', problems.join('\n'))

  if (packed.length > 0) {
    const lines = installLines(packedDir)
    const offline = (line) => line.replace(/^npm install /, 'npm install --prefer-offline ').replace(/ add /, ' add --prefer-offline ')
    smokeApp('npm', join(scratch, 'npm-app'), [['install', offline(lines.npm[0])]], 'node_modules/.bin/gatehouse --help')
    smokeApp('pnpm', join(scratch, 'pnpm-app'), [
      ['pnpm.overrides', lines.pnpm[0]],
      ['add', offline(lines.pnpm[1])],
      // The smoke test imports two scoped packages: pnpm lets an app import its direct dependencies only.
      ['add scoped packages by name', `npx -y ${PNPM} add --prefer-offline @fastify-gatehouse/auth @fastify-gatehouse/errors`]
    ], `npx -y ${PNPM} exec gatehouse --help`)
  }

  const failed = results.filter((ok) => !ok).length
  const seconds = ((performance.now() - started) / 1000).toFixed(1)
  process.stdout.write(`1..${results.length}\n# pack check: ${results.length - failed} passed, ${failed} failed in ${seconds} s\n`)
  if (failed > 0) {
    process.stdout.write(`# scratch apps kept in ${scratch}\n`)
    process.exitCode = 1
  } else {
    rmSync(scratch, { recursive: true, force: true })
  }
}

main()
