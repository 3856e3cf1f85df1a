export { main as runCli } from './cli/main.js'
export type { CliIo } from './cli/io.js'
