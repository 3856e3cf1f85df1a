import { test } from 'tap'
import { Avatar, AuthRuleSyntaxError, compileAuthRule } from '@fastify-gatehouse/core'

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
