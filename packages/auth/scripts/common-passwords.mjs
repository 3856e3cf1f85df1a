#!/usr/bin/env node
// Regenerates data/common-passwords.txt from the "passwords" list of
// @zxcvbn-ts/language-common (src/passwords.json in its package: the 49 233
// most common passwords, most common first). Kept: those of 8 or more
// characters (Unicode code points, as the policy counts them; shorter ones
// are refused by the length rule anyway), lower-cased (the policy compares
// in lower case), first occurrence only, one a line, LF endings. See
// data/README.txt for the source and its licence. D-PASSWORD-01.
//
//   node packages/auth/scripts/common-passwords.mjs <passwords.json> [<out>]
//
// <out> defaults to this package's data/common-passwords.txt. The package
// is not a dependency: fetch its tarball with `npm pack
// @zxcvbn-ts/language-common@4.1.3` and unpack it.
import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

// The shortest minLength the policy allows (MIN_LENGTH_FLOOR in src/password-policy.ts).
const SHORTEST = 8

const [source, out = fileURLToPath(new URL('../data/common-passwords.txt', import.meta.url))] = process.argv.slice(2)
if (source === undefined) {
  process.stderr.write('usage: node common-passwords.mjs <path to @zxcvbn-ts/language-common/src/passwords.json> [<out>]\n')
  process.exit(2)
}

const list = JSON.parse(readFileSync(source, 'utf8'))
if (!Array.isArray(list) || !list.every((entry) => typeof entry === 'string')) {
  process.stderr.write(`${source}: expected a JSON array of strings\n`)
  process.exit(1)
}

const seen = new Set()
for (const entry of list) {
  const lower = entry.toLowerCase()
  // A line break inside an entry would split it in two in the text file.
  if ([...lower].length >= SHORTEST && !/[\r\n]/.test(lower)) seen.add(lower)
}
writeFileSync(out, [...seen].map((entry) => `${entry}\n`).join(''))
process.stderr.write(`${out}: ${seen.size} passwords of ${SHORTEST} or more characters, from ${list.length}\n`)
