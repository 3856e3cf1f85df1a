// The password policy (ASVS 5.0 §6.2): each rule, the bounds of its
// options, the shipped list, and that a password is taken exactly as given.
// D-PASSWORD-01 to D-PASSWORD-07.
import { test } from 'tap'
import fs from 'node:fs'
import { readFile } from 'node:fs/promises'
import { syncBuiltinESMExports } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import {
  isCommonPassword, MemoryUserStore, passwordPolicyDefaults, passwordProblem, resolvePasswordPolicy, type ResolvedPasswordPolicy
} from '@fastify-gatehouse/auth'
import { runNode } from '../../../test-helpers/child.js'

const FAST = { N: 1024, r: 8, p: 1 }
const INVALID = 'GATEHOUSE_AUTH_INVALID_CONFIG'
const DATA = fileURLToPath(new URL('../data/', import.meta.url))
const SCRIPT = fileURLToPath(new URL('../scripts/common-passwords.mjs', import.meta.url))
const ok = (password: string, identity = 'alice', policy?: ResolvedPasswordPolicy) => passwordProblem(password, identity, policy)
const rule = (password: string, identity = 'alice', policy?: ResolvedPasswordPolicy) => passwordProblem(password, identity, policy)?.rule ?? null

// First in this file: nothing before it has read the list in this process.
test('the common-password list is read from disk once, on first use', async (t) => {
  const real = fs.readFileSync
  const reads: string[] = []
  fs.readFileSync = ((path: fs.PathOrFileDescriptor, ...rest: unknown[]) => {
    reads.push(String(path))
    return (real as (...args: unknown[]) => unknown)(path, ...rest)
  }) as typeof fs.readFileSync
  // The policy imports readFileSync by name: make that binding see the wrapper too.
  syncBuiltinESMExports()
  t.teardown(() => { fs.readFileSync = real; syncBuiltinESMExports() })

  t.equal(isCommonPassword('baseball'), true)
  t.equal(isCommonPassword('not on any list 7c1e'), false)
  t.same(passwordProblem('football', 'alice'), { rule: 'common', message: 'The password is one of the most common passwords; choose another.' })
  for (let i = 0; i < 100; i++) passwordProblem(`password-${i}-x`, 'bob')
  t.equal(reads.filter((path) => path.endsWith('common-passwords.txt')).length, 1, 'read once for every check that followed')
})

test('resolvePasswordPolicy: the defaults, frozen', async (t) => {
  t.same(passwordPolicyDefaults, { minLength: 8, maxLength: 256 })
  t.ok(Object.isFrozen(passwordPolicyDefaults))
  t.same(resolvePasswordPolicy(), passwordPolicyDefaults)
  t.same(resolvePasswordPolicy({}), passwordPolicyDefaults)
  const resolved = resolvePasswordPolicy({ minLength: 15 })
  t.same(resolved, { minLength: 15, maxLength: 256 })
  t.ok(Object.isFrozen(resolved))
  t.same(resolvePasswordPolicy(resolved), resolved, 'a resolved policy resolves to itself')
})

test('resolvePasswordPolicy: the bounds of minLength (8–64) and maxLength (64–512), inclusive', async (t) => {
  for (const minLength of [8, 15, 64]) t.equal(resolvePasswordPolicy({ minLength }).minLength, minLength)
  for (const maxLength of [64, 100, 512]) t.equal(resolvePasswordPolicy({ maxLength }).maxLength, maxLength)
  t.same(resolvePasswordPolicy({ minLength: 64, maxLength: 64 }), { minLength: 64, maxLength: 64 }, 'the ranges meet at 64: maxLength can never be under minLength')
  for (const minLength of [7, 0, -8, 65, 8.5, NaN, Infinity, '12', null]) {
    t.throws(() => resolvePasswordPolicy({ minLength } as never),
      { code: INVALID, message: `passwordPolicy.minLength: must be a whole number from 8 to 64, got ${JSON.stringify(minLength)}` }, `minLength ${String(minLength)}`)
  }
  for (const maxLength of [63, 8, 513, 1024, 100.5, '256', true]) {
    t.throws(() => resolvePasswordPolicy({ maxLength } as never),
      { code: INVALID, message: `passwordPolicy.maxLength: must be a whole number from 64 to 512, got ${JSON.stringify(maxLength)}` }, `maxLength ${String(maxLength)}`)
  }
})

test('resolvePasswordPolicy: boot errors name the option under where', async (t) => {
  t.throws(() => resolvePasswordPolicy({ minlength: 12 } as never), { code: INVALID, message: 'passwordPolicy.minlength: unknown option (known: minLength, maxLength)' })
  t.throws(() => resolvePasswordPolicy({ minLength: 4 }, 'serverApp.passwordPolicy'), { code: INVALID, message: /^serverApp\.passwordPolicy\.minLength: must be a whole number from 8 to 64, got 4$/ })
  for (const bad of [null, [], 'strict', 12]) {
    t.throws(() => resolvePasswordPolicy(bad as never, 'passwordPolicy'), { code: INVALID, message: 'passwordPolicy: must be an object such as { minLength: 12 }' }, JSON.stringify(bad))
  }
})

test('min-length: at least minLength Unicode code points', async (t) => {
  t.equal(rule('seven-c'), 'min-length')
  t.equal(rule('eight-ch'), null)
  t.same(ok('x'), { rule: 'min-length', message: 'The password must be at least 8 characters long.' })
  t.equal(rule(''), 'min-length')
  // Counted in code points, not UTF-16 units: 7 emoji are 14 units and still too short.
  t.equal(rule('🔑'.repeat(7)), 'min-length')
  t.equal(rule('🔑'.repeat(8)), null)
  const fifteen = resolvePasswordPolicy({ minLength: 15 })
  t.same(ok('fourteen-chars', 'alice', fifteen), { rule: 'min-length', message: 'The password must be at least 15 characters long.' })
  t.equal(rule('fifteen-chars!!', 'alice', fifteen), null)
  t.same(ok(42 as never), { rule: 'min-length', message: 'The password must be a string.' }, 'not a string: refused, never thrown')
})

test('max-length: at most maxLength code points; at least 64 always allowed (ASVS 6.2.9)', async (t) => {
  t.equal(rule('q'.repeat(256)), null)
  t.same(ok('q'.repeat(257)), { rule: 'max-length', message: 'The password must be at most 256 characters long.' })
  t.equal(rule('🔑'.repeat(256)), null, '256 emoji: 512 UTF-16 units, 256 characters')
  const tight = resolvePasswordPolicy({ maxLength: 64 })
  t.equal(rule('w'.repeat(64), 'alice', tight), null)
  t.equal(rule('w'.repeat(65), 'alice', tight), 'max-length')
  const wide = resolvePasswordPolicy({ maxLength: 512 })
  t.equal(rule('🔑'.repeat(512), 'alice', wide), null, 'the widest: 1024 UTF-16 units, what the login endpoint reads')
})

test('unprintable: control characters and lone surrogates are refused; every other character is allowed', async (t) => {
  const cases = [
    ['NUL', '\u0000'], ['TAB', '\t'], ['LF', '\n'], ['CR', '\r'], ['ESC', '\u001b'], ['US', '\u001f'], ['DEL', '\u007f'], ['NEL', '\u0085'], ['C1 APC', '\u009f'],
    ['lone high surrogate', '\ud83d'], ['lone low surrogate', '\udd11'], ['low before high', '\udd11\ud83d']
  ]
  for (const [name, character] of cases) {
    t.same(ok(`long enough ${character} password`), { rule: 'unprintable', message: 'The password must not contain control characters.' }, name)
  }
  t.equal(rule('🔑 correct horse'), null, 'a surrogate pair is one character')
  t.equal(rule('\ud83d\udd11'.repeat(8)), null)
  t.equal(rule('ends with a high half \ud83d'), 'unprintable')
  // No composition rule (ASVS 6.2.5): any printable script, symbol or space.
  for (const password of ['only lower case words', 'ONLYUPPERCASE', '1234509876123', '        ', 'Ünïcødé pässwörd', 'пароль-кириллица', '密码密码密码密码', 'كلمة المرور السرية', '🔑🔒🗝️🔐🧷🪪🛡️🚪', 'no\u00a0break\u00a0space', 'tab-free ✓ ☃ ∑ ≠ ½']) {
    t.equal(rule(password), null, JSON.stringify(password))
  }
})

test('contains-identity: the identity, or an email\'s local part, in any case; words under 3 characters are allowed', async (t) => {
  const refused = { rule: 'contains-identity', message: 'The password must not contain the identity.' }
  t.same(ok('my-alice-secret'), refused)
  t.same(ok('MY-ALICE-SECRET'), refused, 'in any letter case')
  t.same(ok('aliceAlice'), refused)
  t.same(ok('alice.smith@example.com', 'alice.smith@example.com'), refused, 'the identity itself')
  t.same(ok('xx-alice.smith-xx', 'alice.smith@example.com'), refused, 'the part before @')
  t.equal(rule('example.com-rules', 'alice.smith@example.com'), null, 'the domain is not a word of the identity')
  t.equal(rule('jojojojojojo', 'jo'), null, 'a 2-character identity is not looked for')
  t.equal(rule('jo-at-home-123', 'jo@example.com'), null, 'nor a 2-character local part')
  t.same(ok('ab@x.y and more', 'ab@x.y'), refused, 'the whole identity counts when it has 3 or more characters')
  t.same(ok('key 🔑🔑🔑 key', '🔑🔑🔑'), refused, 'counted in code points')
  t.equal(rule('a long passphrase', ''), null, 'no identity (gatehouse users hash): the rule does not apply')
  t.equal(rule('the-admin-password', 'bob'), null)
  t.same(ok('the-admin-password', 'admin'), refused)
})

test('common: one of the shipped common passwords, compared in lower case, exactly otherwise', async (t) => {
  const refused = { rule: 'common', message: 'The password is one of the most common passwords; choose another.' }
  for (const password of ['password', 'baseball', 'BASEBALL', 'Password1', 'password123', 'qwertyuiop', 'iloveyou', 'trustno1', 'sunshine']) {
    t.same(ok(password), refused, password)
    t.equal(isCommonPassword(password), true, password)
  }
  t.equal(rule('baseball '), null, 'a trailing space makes it another password: nothing is trimmed')
  t.equal(rule(' baseball'), null)
  t.equal(rule('correct horse battery staple'), null)
  t.equal(isCommonPassword('12345'), false, 'shorter than any minLength: left out of the list')
})

test('the rules in a fixed order: length, printable, identity, common', async (t) => {
  t.equal(rule('\u0000alice'), 'min-length')
  t.equal(rule('q'.repeat(300) + '\u0000'), 'max-length')
  t.equal(rule('alice\u0000password'), 'unprintable')
  t.equal(rule('password', 'password'), 'contains-identity')
  t.equal(rule('sunshine', 'bob'), 'common')
})

test('no message quotes the password', async (t) => {
  for (const [password, identity] of [['s3cr3t', 'bob'], ['q'.repeat(300), 'bob'], ['secret\u0000word', 'bob'], ['bob-is-secret', 'bob'], ['baseball', 'bob']] as const) {
    const problem = passwordProblem(password, identity)
    t.ok(problem !== null)
    t.notOk(problem!.message.includes(password), problem!.rule)
    t.notOk(problem!.message.includes(identity), `${problem!.rule}: nor the identity`)
  }
})

test('exactly as given: leading and trailing spaces, case and Unicode are kept and verified exactly', async (t) => {
  const store = new MemoryUserStore({ scrypt: FAST })
  const spaced = '  two leading, two trailing  '
  t.equal(passwordProblem(spaced, 'alice'), null)
  await store.add('alice', { password: spaced })
  t.ok(await store.verify('alice', spaced))
  for (const other of [spaced.trim(), ` ${spaced}`, spaced.toUpperCase(), spaced.replace(/ +/g, ' '), spaced.slice(0, -1)]) {
    t.equal(await store.verify('alice', other), null, JSON.stringify(other))
  }

  const emoji = '🔑 Ünïcødé ключ 密码 🗝️'
  t.equal(passwordProblem(emoji, 'bob'), null)
  await store.add('bob', { password: emoji })
  t.ok(await store.verify('bob', emoji))
  t.equal(await store.verify('bob', emoji.toLowerCase()), null)
  t.equal(await store.verify('bob', emoji.replace('🗝️', '🗝')), null, 'a variation selector is part of the password')
  // The one change: Unicode normalisation (NFC) before hashing, so é typed
  // as one code point or as e + combining accent is the same password.
  t.ok(await store.verify('bob', emoji.normalize('NFD')))

  const long = 'w'.repeat(256)
  await store.add('carol', { password: long })
  t.ok(await store.verify('carol', long))
  t.equal(await store.verify('carol', long.slice(0, 255)), null, 'no truncation')
})

test('data/common-passwords.txt: what the script makes of the source list', async (t) => {
  const text = await readFile(join(DATA, 'common-passwords.txt'), 'utf8')
  t.ok(text.endsWith('\n'))
  t.notOk(text.includes('\r'))
  const lines = text.slice(0, -1).split('\n')
  t.equal(lines.length, 17950)
  t.equal(new Set(lines).size, lines.length, 'no duplicates')
  t.ok(lines.every((line) => [...line].length >= 8), 'none shorter than the lowest minLength')
  t.ok(lines.every((line) => line === line.toLowerCase()), 'lower case')
  t.same(lines.slice(0, 3), ['password', '12345678', '123456789'], 'most common first')
  const readme = await readFile(join(DATA, 'README.txt'), 'utf8')
  t.match(readme, /@zxcvbn-ts\/language-common 4\.1\.3/)
  t.match(readme, /MIT/)
  t.match(readme, /Copyright \(c\) 2012-2016 Dan Wheeler and Dropbox, Inc\./)
  t.match(readme, /scripts\/common-passwords\.mjs/)
  const pkg = JSON.parse(await readFile(join(DATA, '..', 'package.json'), 'utf8')) as { files: string[] }
  t.ok(pkg.files.includes('data'), 'the list ships with the package')
})

test('scripts/common-passwords.mjs: 8 or more characters, lower-cased, first occurrence, LF', async (t) => {
  const dir = t.testdir({ 'passwords.json': JSON.stringify(['123456', 'Password', 'password', 'PassWord1', 'password', 'ÜMLAUTÜMLAUT', 'line\nbreak9', '🔑🔑🔑🔑🔑🔑🔑🔑', '🔑🔑🔑🔑🔑🔑🔑']) })
  const out = join(dir, 'out.txt')
  const run = await runNode([SCRIPT, join(dir, 'passwords.json'), out])
  t.equal(run.code, 0, run.stderr)
  t.equal(await readFile(out, 'utf8'), 'password\npassword1\nümlautümlaut\n🔑🔑🔑🔑🔑🔑🔑🔑\n')
  t.match(run.stderr, /4 passwords of 8 or more characters, from 9\n$/)

  const usage = await runNode([SCRIPT])
  t.equal(usage.code, 2)
  t.match(usage.stderr, /^usage: /)
  const notList = join(dir, 'object.json')
  await fs.promises.writeFile(notList, '{"a":1}')
  const refused = await runNode([SCRIPT, notList, out])
  t.equal(refused.code, 1)
  t.match(refused.stderr, /expected a JSON array of strings/)
})

// Found in review: the rules read the raw string while the hash is made of its
// NFC form, and invisible format characters passed as printable letters.
test('judged as hashed: NFC, without invisible format characters (D-PASSWORD-09)', async (t) => {
  const policy = resolvePasswordPolicy()
  const decomposed = 'éééé'.normalize('NFD')
  t.equal([...decomposed].length, 8, 'eight code points as sent')
  t.match(passwordProblem(decomposed, 'carol', policy), { rule: 'min-length' }, 'four characters once composed, as the hash sees them')
  for (const hidden of ['password1\u200b', '\u00adpassword1', 'qwertyuiop\ufeff', 'pass\u200dword1']) {
    t.match(passwordProblem(hidden, 'x', policy), { rule: 'common' }, `${JSON.stringify(hidden)} is still a common password`)
  }
  t.match(passwordProblem('\u200b'.repeat(12), 'x', policy), { rule: 'min-length' }, 'invisible characters are no length')
  t.match(passwordProblem('car\u200bol-garden-9', 'carol', policy), { rule: 'contains-identity' })
  t.equal(passwordProblem('👨‍👩‍👧👨‍👩‍👧👨‍👩‍👧 family', 'x', policy), null, 'emoji joined by zero-width joiners are fine')
})

test('a policy object not made by resolvePasswordPolicy is resolved first: a missing bound is the default, never none', async (t) => {
  t.match(passwordProblem('short', 'x', { minLength: 12 } as never), { rule: 'min-length', message: 'The password must be at least 12 characters long.' })
  t.match(passwordProblem('short', 'x', {} as never), { rule: 'min-length', message: 'The password must be at least 8 characters long.' })
  t.throws(() => passwordProblem('long enough words', 'x', { minLength: 3 } as never), { code: 'GATEHOUSE_AUTH_INVALID_CONFIG' })
})

test('a resolved policy is marked on itself, not in a registry: it is taken as it is, a copy is resolved again', async (t) => {
  const policy = resolvePasswordPolicy({ minLength: 12 })
  t.ok(Object.isFrozen(policy))
  t.same(Object.keys(policy), ['minLength', 'maxLength'], 'only the two bounds show')
  t.equal(JSON.stringify(policy), '{"minLength":12,"maxLength":256}')
  t.match(passwordProblem('short', 'x', policy), { rule: 'min-length', message: 'The password must be at least 12 characters long.' })
  // A copy with a bound out of range is not taken as resolved: passwordProblem resolves it and refuses it.
  t.throws(() => passwordProblem('long enough words', 'x', { ...policy, minLength: 3 }), { code: 'GATEHOUSE_AUTH_INVALID_CONFIG' })
  t.equal(passwordProblem('long enough words', 'x', { ...policy }), null, 'an unmarked copy in range is resolved and used')
})
