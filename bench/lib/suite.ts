import type { FastifyInstance } from 'fastify'

/** One server set-up measured by a suite. */
export interface Scenario {
  /** Shown in the table. */
  label: string
  /** Builds a ready-to-listen app (routes declared). */
  build: () => Promise<FastifyInstance>
  /** What the load generator requests. Default: GET /. */
  request?: {
    method?: string
    path?: string
    headers?: Record<string, string>
    /** Headers made anew for every request (e.g. a fresh token), in the load generator. */
    perRequest?: () => Record<string, string>
  }
  /**
   * Run by the load generator once the server listens (e.g. sign in over
   * HTTP); the headers it returns are sent with every request.
   */
  prepare?: (baseUrl: string) => Promise<Record<string, string>>
  /** Status every response must have. Default: 200. */
  expectStatus?: number
  /**
   * count.ts counts windows until two in a row agree, for a scenario V8 is
   * still compiling after the warm-up (the session ones). D-BENCH-10.
   */
  settle?: boolean
}

/** A set of scenarios measured side by side in one run. */
export interface Suite {
  title: string
  /** The scenario the others are compared with (bare Fastify). */
  baseline: string
  scenarios: Record<string, Scenario>
}
