import { test } from 'tap'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

// Issue 25 item 16: a snippet copied from the docs must not send stack traces
// where NODE_ENV is unset (`debug: NODE_ENV !== 'production'` did). D-ERRORS-17.

const root = fileURLToPath(new URL('../../../', import.meta.url))

function markdownFiles (): string[] {
  const files = ['README.md']
  const under = (dir: string): string[] => existsSync(join(root, dir)) ? readdirSync(join(root, dir)).map((name) => join(dir, name)) : []
  files.push(...under('docs').filter((f) => f.endsWith('.md')))
  for (const group of ['packages', 'examples']) {
    for (const dir of under(group)) if (existsSync(join(root, dir, 'README.md'))) files.push(join(dir, 'README.md'))
  }
  return files
}

// What `debug` may be set to in a snippet: off, or on only where the reader says development.
const SAFE = /^(?:false|process\.env\.NODE_ENV === 'development'|process\.env\.GATEHOUSE_DEBUG === '1')$/
const SETTING = /\bdebug:\s*([^,}\n]+?)\s*(?:[,}\n]|$)/g

test('every debug setting in the docs is off unless the reader asks for development', async (t) => {
  const unsafe: string[] = []
  let seen = 0
  for (const file of markdownFiles()) {
    const lines = readFileSync(join(root, file), 'utf8').split('\n')
    lines.forEach((line, i) => {
      // Tables and prose name the option (`debug: true` adds the stack); code sets it.
      if (line.startsWith('|') || !/await |middleware|errors:|errorsPlugin/.test(line)) return
      for (const [, value] of line.matchAll(SETTING)) {
        seen++
        if (!SAFE.test(value!.trim())) unsafe.push(`${file}:${i + 1}: debug: ${value!.trim()}`)
      }
    })
  }
  t.ok(seen >= 2, `found the snippets (${seen})`)
  t.same(unsafe, [], 'no snippet turns stacks on by default')
})
