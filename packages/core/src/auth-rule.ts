// Route rules over the caller's tags: a tag name, or an expression with
// | (or), & (and), ! (not) and parentheses; & binds tighter than |.
//
//   rule    := or
//   or      := and ( '|' and )*
//   and     := unary ( '&' unary )*
//   unary   := '!' unary | '(' or ')' | '*' | TAG
//   TAG     := [A-Za-z0-9_.:-]+   (TAG_CHARACTERS in tags.ts)
//
// `*` is any authenticated caller, whatever its tags and backend: the rule
// enforcer refuses anonymous callers before a rule is asked (D-RULES-02),
// so it holds for every caller it is asked about. D-RULES-12: `*` is
// outside the tag alphabet, so it can never be, or shadow, a real tag.

import type { FastifyRequest } from 'fastify'
import { anonymousRefusal, forbidden } from './anonymous-refusal.js'
import { GATEHOUSE_CORE_INVALID_AUTH_RULE_SYNTAX } from './errors.js'
import type { RouteRecord } from './route-record.js'
import { TAG_CHARACTERS } from './tags.js'

/** Something that has tags: an `Avatar`, or any object with `hasTag`. */
export interface Tagged {
  hasTag: (tag: string) => boolean
}

/** A compiled rule: true when the tagged caller satisfies it. */
export type AuthRule = (caller: Tagged) => boolean

/**
 * Thrown for a malformed rule; `position` is the offending character's
 * index. A `SyntaxError` with the code `GATEHOUSE_CORE_INVALID_AUTH_RULE_SYNTAX`.
 * D-CODES-04: a subclass of the coded class, since createError's classes take no extra field.
 */
export class AuthRuleSyntaxError extends GATEHOUSE_CORE_INVALID_AUTH_RULE_SYNTAX {
  readonly position: number
  constructor (message: string, position: number) {
    super(message)
    this.name = 'AuthRuleSyntaxError'
    this.position = position
  }
}

/** The rule `*`: any caller it is asked about (an authenticated one; see the grammar above). */
const anyCaller: AuthRule = () => true

const TAG = new RegExp(`${TAG_CHARACTERS}+`, 'y')
// D-RULES-03: bounded, so a config mistake fails with a message, not a stack overflow.
const MAX_LENGTH = 1024
const MAX_DEPTH = 32

class Parser {
  readonly #source: string
  #at = 0
  #depth = 0

  constructor (source: string) {
    this.#source = source
  }

  parse (): AuthRule {
    const rule = this.#or()
    this.#space()
    if (this.#at < this.#source.length) this.#fail(`unexpected "${this.#source[this.#at] ?? ''}"`)
    return rule
  }

  #fail (message: string): never {
    throw new AuthRuleSyntaxError(`${message} at position ${this.#at}`, this.#at)
  }

  #space (): void {
    while (this.#source[this.#at] === ' ' || this.#source[this.#at] === '\t') this.#at++
  }

  #eat (char: string): boolean {
    this.#space()
    if (this.#source[this.#at] !== char) return false
    this.#at++
    return true
  }

  #or (): AuthRule {
    const terms = [this.#and()]
    while (this.#eat('|')) terms.push(this.#and())
    if (terms.length === 1) return terms[0]!
    return (caller) => terms.some((term) => term(caller))
  }

  #and (): AuthRule {
    const terms = [this.#unary()]
    while (this.#eat('&')) terms.push(this.#unary())
    if (terms.length === 1) return terms[0]!
    return (caller) => terms.every((term) => term(caller))
  }

  #unary (): AuthRule {
    if (++this.#depth > MAX_DEPTH) this.#fail(`nested deeper than ${MAX_DEPTH}`)
    try {
      if (this.#eat('!')) {
        this.#space()
        // D-RULES-12: `!*` would refuse every caller; a route nobody may call is a mistake, not a rule.
        if (this.#source[this.#at] === '*') this.#fail('"!*" matches no caller (anonymous callers never satisfy a rule); leave the route out instead')
        const inner = this.#unary()
        return (caller) => !inner(caller)
      }
      if (this.#eat('(')) {
        const inner = this.#or()
        if (!this.#eat(')')) this.#fail('expected ")"')
        return inner
      }
      if (this.#eat('*')) return anyCaller
      this.#space()
      TAG.lastIndex = this.#at
      const match = TAG.exec(this.#source)
      if (match === null) this.#fail(this.#at >= this.#source.length ? 'expected a tag, got the end of the rule' : `expected a tag, got "${this.#source[this.#at] ?? ''}"`)
      this.#at = TAG.lastIndex
      const tag = match[0]
      return (caller) => caller.hasTag(tag)
    } finally {
      this.#depth--
    }
  }
}

/**
 * Compiles a rule such as `admin`, `admin|ops`, `admin & !suspended` or `*`
 * (any authenticated caller) into a function of the caller's tags. Throws {@link AuthRuleSyntaxError}
 * (`GATEHOUSE_CORE_INVALID_AUTH_RULE_SYNTAX`) for a malformed rule (empty,
 * dangling operator, unbalanced parenthesis, a character that is not part
 * of a tag, `!*`, longer than 1024 characters or nested deeper than 32).
 */
export function compileAuthRule (rule: string): AuthRule {
  if (typeof rule !== 'string') throw new AuthRuleSyntaxError('a rule must be a string', 0)
  if (rule.length > MAX_LENGTH) throw new AuthRuleSyntaxError(`longer than ${MAX_LENGTH} characters`, MAX_LENGTH)
  if (rule.trim() === '') throw new AuthRuleSyntaxError('empty rule', 0)
  return new Parser(rule).parse()
}

/**
 * Why `request`'s caller fails the compiled rule `allows`, or `undefined`
 * when it passes: anonymous, the refusal the route's record calls for (401
 * with a challenge, or a sign-in; `record` is `undefined` for a scope's 404
 * handler, which is no route); signed in, 403 `GATEHOUSE_CORE_FORBIDDEN`.
 * Beside the rules it asks, so a rule check on every request is one call here.
 * D-RULES-02: an anonymous caller never satisfies a rule, even a purely negative one.
 */
export function ruleRefusal (allows: AuthRule, record: Pick<RouteRecord, 'accepts' | 'challengeAnonymous'> | undefined, request: FastifyRequest): Error | undefined {
  const caller = request.scope?.auth ?? null
  if (caller !== null && allows(caller)) return undefined
  return caller === null ? anonymousRefusal(record, request.headers.authorization) : forbidden()
}
