#!/usr/bin/env node
let main
try {
  ({ main } = await import('../dist/cli/main.js'))
} catch (err) {
  // In a clone, before the first build: say what to do, not a resolver stack (D-CLI-04).
  if (err?.code !== 'ERR_MODULE_NOT_FOUND' || !String(err.url ?? err.message).includes('/dist/cli/main.js')) throw err
  process.stderr.write('gatehouse: the command line is not built yet: run `npx -y pnpm@10.34.9 build` in the clone first\n')
  process.exit(1)
}

process.exitCode = await main(process.argv.slice(2))
