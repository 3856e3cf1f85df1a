#!/usr/bin/env node
// Type-checks every ```ts / ```typescript snippet of the docs: README.md,
// docs/*.md, packages/*/README.md, examples/*/README.md and bench/README.md.
//
// Each snippet becomes a module of its own (top-level await allowed, as in
// the docs' `await FileUserStore.open(…)`) in a folder inside the umbrella
// package, so its imports resolve as in a project that installed
// `fastify-gatehouse`: the workspace packages' built declarations (run
// `pnpm build` first), fastify, and the root's devDependencies. One tsc run
// checks them all with the repository's compiler settings; an error is
// reported at the Markdown file and line it comes from.
//
// Two names need no declaration, as the docs use them throughout: `app` (the
// reader's Fastify instance) and `handler` (a route handler of theirs).
// Everything else a snippet uses it imports or declares, so it can be
// copied as it is. A snippet that is deliberately partial is marked in its
// fence, with the reason after it: ```ts nocheck -- <why>. Keep those rare.
// D-TOOLING-10.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const out = join(root, 'packages', 'gatehouse', '.doc-snippets')
const FENCE = /^(\s*)(`{3,}|~{3,})\s*(ts|typescript)\b(.*)$/

function markdownFiles () {
  const files = ['README.md']
  const inFolder = (dir, pick) => existsSync(join(root, dir))
    ? readdirSync(join(root, dir), { withFileTypes: true }).filter(pick).map((entry) => join(dir, entry.name))
    : []
  files.push(...inFolder('docs', (e) => e.isFile() && e.name.endsWith('.md')))
  for (const group of ['packages', 'examples']) {
    for (const dir of inFolder(group, (e) => e.isDirectory())) {
      if (existsSync(join(root, dir, 'README.md'))) files.push(join(dir, 'README.md'))
    }
  }
  if (existsSync(join(root, 'bench', 'README.md'))) files.push(join('bench', 'README.md'))
  return files.sort()
}

/** The snippets of one Markdown file: { line (1-based, of the first code line), code, skip }. */
function snippets (file) {
  const lines = readFileSync(join(root, file), 'utf8').split('\n')
  const found = []
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i])
    if (open === null) {
      // Skip other fenced blocks whole, so a ```ts inside a ```md example is not taken.
      const other = /^\s*(`{3,}|~{3,})/.exec(lines[i])
      if (other !== null) {
        const close = new RegExp(`^\\s*${other[1][0]}{${other[1].length},}\\s*$`)
        for (i++; i < lines.length && !close.test(lines[i]); i++);
      }
      continue
    }
    const [, indent, fence, , info] = open
    const close = new RegExp(`^\\s*${fence[0]}{${fence.length},}\\s*$`)
    const start = i + 1
    const code = []
    for (i++; i < lines.length && !close.test(lines[i]); i++) code.push(lines[i].startsWith(indent) ? lines[i].slice(indent.length) : lines[i])
    const nocheck = /\bnocheck\b(.*)/.exec(info)
    if (nocheck !== null && !/--\s*\S/.test(nocheck[1])) {
      console.error(`${file}:${start}: a nocheck snippet says why: \`\`\`ts nocheck -- <reason>`)
      process.exit(1)
    }
    found.push({ line: start + 1, code: code.join('\n'), skip: nocheck !== null })
  }
  return found
}

rmSync(out, { recursive: true, force: true })
mkdirSync(out, { recursive: true })
const origin = new Map()
let checked = 0
let skipped = 0
for (const file of markdownFiles()) {
  for (const snippet of snippets(file)) {
    if (snippet.skip) { skipped++; continue }
    const name = `${file.replace(/[/\\.]/g, '_')}_L${snippet.line}.ts`
    // `export {}` makes every snippet a module, even one without imports.
    writeFileSync(join(out, name), `${snippet.code}\nexport {}\n`)
    origin.set(name, { file, line: snippet.line })
    checked++
  }
}
writeFileSync(join(out, 'prelude.d.ts'), [
  "declare const app: import('fastify').FastifyInstance",
  "declare const handler: import('fastify').RouteHandlerMethod",
  ''
].join('\n'))
writeFileSync(join(out, 'tsconfig.json'), JSON.stringify({
  extends: relative(out, join(root, 'tsconfig.base.json')),
  compilerOptions: { noEmit: true, composite: false, declaration: false, declarationMap: false, sourceMap: false },
  include: ['*.ts', 'prelude.d.ts']
}, null, 2))

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
const run = spawnSync(process.execPath, [tsc, '-p', join(out, 'tsconfig.json'), '--pretty', 'false'], { encoding: 'utf8' })
const output = `${run.stdout}${run.stderr}`
let errors = 0
for (const line of output.split('\n')) {
  const at = /^(?:.*[/\\])?([^/\\(]+\.ts)\((\d+),(\d+)\): (.*)$/.exec(line)
  const from = at === null ? undefined : origin.get(at[1])
  if (from !== undefined) {
    errors++
    console.error(`${from.file}:${from.line + Number(at[2]) - 1}:${at[3]} ${at[4]}`)
  } else if (line.trim() !== '') {
    console.error(line)
  }
}
if (run.status !== 0 && errors === 0) console.error(`tsc exited with ${run.status ?? run.signal}`)
if (run.status === 0) {
  rmSync(out, { recursive: true, force: true })
  console.log(`doc snippets: ${checked} type-checked, ${skipped} marked nocheck`)
} else {
  console.error(`doc snippets: ${errors} error(s) in ${checked} snippets (the generated modules are in ${relative(root, out)})`)
  process.exit(1)
}
