// The helpers that were here moved to process-wide.ts, the one list of what
// Gatehouse keeps once per process (D-CORE-13). rule-coverage.ts and
// route-rules.ts still import processWide from here until the route-rules
// plugin (issue 26, item 1) replaces them; then this file goes.
export { processWide } from './process-wide.js'
