// Issue 26, item 1: the route-rules plugin keeps one record per route, and
// after ready() routeRules(app) lists every route with the rule it enforces
// ("public" where none). 100 routes with seeded random rules (both
// spellings), prefixes, methods and constraints: the inventory equals what
// was declared, and probing each listed route shows it enforces exactly
// the listed rule.
import { test } from 'tap'
import Fastify, { type FastifyInstance, type RouteShorthandOptions } from 'fastify'
import { Avatar, compileAuthRule, declareRouteChallenges, defineComponent, ensureRouteRules, ensureScope, middlewareChain, routeRules, type RouteRuleEntry } from '@fastify-gatehouse/core'

const TAGS = ['a', 'b', 'c', 'd'] as const
const PREFIXES = ['', '/v1', '/v1/admin', '/shop'] as const
const CHALLENGE = 'Test realm="inventory"'

/** mulberry32: a small seeded generator, so a failure replays. */
function seeded (seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let x = state
    x = Math.imul(x ^ (x >>> 15), x | 1)
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61)
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296
  }
}

interface Declared {
  prefix: string
  path: string
  method: 'GET' | 'POST' | 'DELETE'
  rule: string | undefined
  spelling: 'config' | 'shorthand'
  version: string | undefined
  challengeAnonymous: boolean
}

function randomRoutes (count: number, seed: number): Declared[] {
  const random = seeded(seed)
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!
  const rules: Array<() => string | undefined> = [
    () => undefined,
    () => pick(TAGS),
    () => `${pick(TAGS)}|${pick(TAGS)}`,
    () => { const [x, y] = [pick(TAGS), pick(TAGS)]; return x === y ? `${x} & !suspended` : `${x} & !${y}` },
    () => '*',
    () => { const [x, y, z] = [...TAGS].sort(() => random() - 0.5); return `(${x!} | ${y!}) & !${z!}` }
  ]
  return Array.from({ length: count }, (_, i) => {
    const rule = pick(rules)()
    return {
      prefix: pick(PREFIXES),
      path: `/r${i}`,
      method: pick(['GET', 'GET', 'POST', 'DELETE'] as const),
      rule,
      spelling: random() < 0.5 ? 'config' : 'shorthand',
      version: random() < 0.3 ? pick(['1.0.0', '2.0.0']) : undefined,
      // Only a ruled route may ask for it (a boot error otherwise).
      challengeAnonymous: rule !== undefined && random() < 0.3
    }
  })
}

/** An auth stand-in that declares what it accepts: `x-user: name:tag1,tag2` becomes the caller. */
const fakeAuth = defineComponent({
  name: 'fake-auth',
  order: 400,
  default: true,
  plugin: async (app) => {
    declareRouteChallenges(app, { schemes: ['Test'], challenges: [CHALLENGE], challengeAnonymous: false })
    app.addHook('onRequest', async (req) => {
      const header = req.headers['x-user']
      if (typeof header === 'string') {
        const [identity = '', tags = ''] = header.split(':')
        req.scope.auth = new Avatar(identity, { tags, backend: 'test' })
      }
    })
  }
})

function options (route: Declared): RouteShorthandOptions {
  const config: Record<string, unknown> = {}
  if (route.rule !== undefined && route.spelling === 'config') config.authRule = route.rule
  if (route.challengeAnonymous) config.challengeAnonymous = true
  return {
    config,
    ...(route.rule !== undefined && route.spelling === 'shorthand' ? { authRule: route.rule } : {}),
    ...(route.version === undefined ? {} : { constraints: { version: route.version } })
  }
}

async function build (routes: readonly Declared[]): Promise<FastifyInstance> {
  const app = Fastify()
  await middlewareChain(app, {}, { components: [fakeAuth] })
  for (const prefix of PREFIXES) {
    const mine = routes.filter((r) => r.prefix === prefix)
    const declare = (scope: FastifyInstance): void => {
      for (const route of mine) scope.route({ method: route.method, url: route.path, ...options(route), handler: async () => 'ok' })
    }
    if (prefix === '') declare(app)
    else await app.register(async (scope) => { declare(scope) }, { prefix })
  }
  return app
}

/** What the inventory must say of the declared routes: GET routes bring their HEAD route. */
function expected (routes: readonly Declared[]): RouteRuleEntry[] {
  return routes.flatMap((route) => (route.method === 'GET' ? ['GET', 'HEAD'] : [route.method]).map((method) => ({
    method,
    url: `${route.prefix}${route.path}`,
    ...(route.version === undefined ? {} : { constraints: { version: route.version } }),
    rule: route.rule ?? 'public',
    ...(route.challengeAnonymous ? { challengeAnonymous: true as const } : {})
  })))
}

const byRoute = (a: RouteRuleEntry, b: RouteRuleEntry): number => `${a.url} ${a.method}` < `${b.url} ${b.method}` ? -1 : 1

/** Every tag set over TAGS (and the one with `suspended`), as callers. */
const CALLERS = Array.from({ length: 1 << TAGS.length }, (_, bits) => TAGS.filter((_, i) => (bits & (1 << i)) !== 0))
  .flatMap((tags) => [tags, [...tags, 'suspended']])

test('routeRules(app) after ready(): 100 random routes, the inventory equals what each route enforces when probed', async (t) => {
  const routes = randomRoutes(100, 26)
  t.ok(routes.some((r) => r.rule === undefined) && routes.some((r) => r.version !== undefined) && routes.some((r) => r.challengeAnonymous), 'the sample has open, constrained and challenging routes')
  const app = await build(routes)
  t.teardown(() => app.close())
  t.equal(routeRules(app), undefined, 'nothing to read before ready()')
  await app.ready()
  const inventory = routeRules(app)!
  t.same([...inventory].sort(byRoute), expected(routes).sort(byRoute), 'every route, with its rule ("public" where none), constraints and challenge')
  t.ok(Object.isFrozen(inventory) && inventory.every((entry) => Object.isFrozen(entry)))

  for (const entry of inventory) {
    const version = entry.constraints?.version as string | undefined
    const probe = async (user?: string): Promise<{ status: number, challenge: unknown }> => {
      const headers: Record<string, string> = {}
      if (version !== undefined) headers['accept-version'] = version
      if (user !== undefined) headers['x-user'] = user
      const res = await app.inject({ method: entry.method as 'GET', url: entry.url, headers })
      return { status: res.statusCode, challenge: res.headers['www-authenticate'] }
    }
    const name = `${entry.method} ${entry.url}${version === undefined ? '' : ` (version ${version})`} "${entry.rule}"`
    if (version !== undefined) t.equal((await app.inject({ method: entry.method as 'GET', url: entry.url })).statusCode, 404, `${name}: the constraint is real`)
    if (entry.rule === 'public') {
      t.equal((await probe()).status, 200, `${name}: anonymous`)
      t.equal((await probe('eve:suspended')).status, 200, `${name}: any caller`)
      continue
    }
    const anonymous = await probe()
    t.same(anonymous, entry.challengeAnonymous === true ? { status: 401, challenge: CHALLENGE } : { status: 403, challenge: undefined }, `${name}: anonymous`)
    // The callers the listed rule admits get in; the others get 403.
    const allows = compileAuthRule(entry.rule)
    const right = CALLERS.find((tags) => allows(new Avatar('x', { tags, backend: 'test' })))
    const wrong = CALLERS.find((tags) => !allows(new Avatar('x', { tags, backend: 'test' })))
    if (right === undefined) {
      t.fail(`${name}: no caller satisfies the rule`)
      continue
    }
    t.equal((await probe(`alice:${right.join(',')}`)).status, 200, `${name}: a caller with the right tags`)
    if (wrong !== undefined) t.equal((await probe(`bob:${wrong.join(',')}`)).status, 403, `${name}: a caller with the wrong tags`)
  }
})

test('routeRules: ensureRouteRules alone, registered twice, lists each route once with its rule and fresh', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await ensureScope(app)
  await ensureRouteRules(app)
  await ensureRouteRules(app)
  app.get('/open', async () => 'ok')
  app.get('/fresh', { fresh: 60, authRule: 'a' }, async () => 'ok')
  await app.ready()
  t.same(routeRules(app), [
    { method: 'GET', url: '/open', rule: 'public' },
    { method: 'HEAD', url: '/open', rule: 'public' },
    { method: 'GET', url: '/fresh', rule: 'a', fresh: 60 },
    { method: 'HEAD', url: '/fresh', rule: 'a', fresh: 60 }
  ], 'registered twice, one plugin: each route listed once')
  t.equal((await app.inject('/fresh')).statusCode, 403)
})
