import { test } from 'tap'
import { Avatar, AuthRuleSyntaxError, compileAuthRule, GATEHOUSE_CORE_INVALID_AUTH_RULE_SYNTAX } from '@fastify-gatehouse/core'

const who = (tags: string) => new Avatar('x', { tags, backend: 'test' })

test('rule expressions', async (t) => {
  const cases: Array<[string, string, boolean]> = [
    ['admin', 'admin', true],
    ['admin', 'ops', false],
    ['admin|ops', 'ops', true],
    ['admin | ops', 'dev', false],
    ['admin & !suspended', 'admin', true],
    ['admin & !suspended', 'admin,suspended', false],
    ['!suspended', 'dev', true],
    ['a | b & c', 'a', true],
    ['a | b & c', 'b', false],
    ['(a | b) & c', 'b,c', true],
    ['(a | b) & c', 'a', false],
    ['!!a', 'a', true],
    ['!(a|b)', 'c', true],
    ['team:eu-1.read', 'team:eu-1.read', true],
    ['  admin\t', 'admin', true]
  ]
  for (const [rule, tags, expected] of cases) {
    t.equal(compileAuthRule(rule)(who(tags)), expected, `${rule} with [${tags}]`)
  }
})

test('malformed rules are refused with the position', async (t) => {
  const cases: Array<[string, RegExp]> = [
    ['', /empty rule/],
    ['   ', /empty rule/],
    ['admin &', /expected a tag, got the end of the rule at position 7/],
    ['| admin', /expected a tag, got "\|" at position 0/],
    ['(admin', /expected "\)" at position 6/],
    ['admin)', /unexpected "\)" at position 5/],
    ['admin ops', /unexpected "o" at position 6/],
    ['admin || ops', /expected a tag, got "\|"/],
    ['admin,ops', /unexpected ","/],
    ['ad"min', /unexpected """/],
    ['('.repeat(40) + 'a' + ')'.repeat(40), /nested deeper than 32/],
    ['!'.repeat(40) + 'a', /nested deeper than 32/],
    ['a|'.repeat(600) + 'a', /longer than 1024/]
  ]
  for (const [rule, message] of cases) {
    t.throws(() => compileAuthRule(rule), message, JSON.stringify(rule.slice(0, 30)))
    t.throws(() => compileAuthRule(rule), AuthRuleSyntaxError)
  }
  t.throws(() => compileAuthRule(42 as never), AuthRuleSyntaxError)
})

test('a malformed rule throws a coded AuthRuleSyntaxError: code, name, position, a SyntaxError (D-CODES-04)', async (t) => {
  let thrown: unknown
  try {
    compileAuthRule('admin ops')
  } catch (err) {
    thrown = err
  }
  t.ok(thrown instanceof AuthRuleSyntaxError)
  t.ok(thrown instanceof SyntaxError)
  t.ok(thrown instanceof GATEHOUSE_CORE_INVALID_AUTH_RULE_SYNTAX)
  t.match(thrown, {
    code: 'GATEHOUSE_CORE_INVALID_AUTH_RULE_SYNTAX',
    name: 'AuthRuleSyntaxError',
    statusCode: 500,
    position: 6,
    message: 'unexpected "o" at position 6'
  })
  t.equal(String(thrown), 'AuthRuleSyntaxError [GATEHOUSE_CORE_INVALID_AUTH_RULE_SYNTAX]: unexpected "o" at position 6')
  t.throws(() => compileAuthRule(42 as never), { code: 'GATEHOUSE_CORE_INVALID_AUTH_RULE_SYNTAX', position: 0, message: 'a rule must be a string' })
  t.throws(() => compileAuthRule(''), { code: 'GATEHOUSE_CORE_INVALID_AUTH_RULE_SYNTAX', position: 0, message: 'empty rule' })
  t.notOk(new SyntaxError('x') instanceof AuthRuleSyntaxError)
})

// D-RULES-12: `*` is any authenticated caller (the enforcer never asks a rule about an anonymous one).
test('"*" holds for any caller, and combines with tags', async (t) => {
  const cases: Array<[string, string, boolean]> = [
    ['*', '', true],
    ['*', 'admin', true],
    [' * ', 'dev', true],
    ['* & !suspended', 'dev', true],
    ['* & !suspended', 'dev,suspended', false],
    ['admin | *', '', true],
    ['(* & ops) | admin', 'ops', true],
    ['(* & ops) | admin', 'dev', false],
    ['!(admin) & *', 'dev', true]
  ]
  for (const [rule, tags, expected] of cases) {
    t.equal(compileAuthRule(rule)(who(tags)), expected, `${rule} with [${tags}]`)
  }
  // Not a tag: a tag named "*" cannot exist (tags use letters, digits and _ . : -).
  t.equal(compileAuthRule('*')(new Avatar('y', { tags: [], backend: 'api_key' })), true, 'whatever the backend')
})

test('"!*" and "*" glued to a tag are refused', async (t) => {
  t.throws(() => compileAuthRule('!*'), { code: 'GATEHOUSE_CORE_INVALID_AUTH_RULE_SYNTAX', message: /"!\*" matches no caller .* at position 1/ })
  t.throws(() => compileAuthRule('admin & ! *'), { message: /"!\*" matches no caller/ })
  t.throws(() => compileAuthRule('admin*'), { message: /unexpected "\*" at position 5/ })
  t.throws(() => compileAuthRule('**'), { message: /unexpected "\*" at position 1/ })
})
