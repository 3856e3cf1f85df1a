import { createInterface } from 'node:readline'
import type { CliIo } from './io.js'
import { UsageError } from './io.js'

async function readAll (io: CliIo): Promise<string> {
  let text = ''
  for await (const chunk of io.stdin) {
    text += chunk.toString()
    if (text.length > 4096) throw new UsageError('the password on stdin is too long')
  }
  return text
}

// Reads one line from a terminal without echoing it.
function ask (io: CliIo, prompt: string): Promise<string> {
  return new Promise((resolve) => {
    io.stderr.write(prompt)
    const rl = createInterface({ input: io.stdin, terminal: true })
    const output = rl as unknown as { output?: unknown, _writeToOutput?: (s: string) => void }
    output._writeToOutput = () => {}
    rl.question('', (answer) => {
      rl.close()
      io.stderr.write('\n')
      resolve(answer)
    })
  })
}

/**
 * The new password: asked twice on a terminal (not echoed), or the first
 * line of standard input when it is piped. Never from the command line,
 * where it would land in shell history and `ps`.
 * D-CLI-01.
 */
export async function readNewPassword (io: CliIo): Promise<string> {
  let password: string
  if (io.stdin.isTTY === true) {
    password = await ask(io, 'Password: ')
    if (await ask(io, 'Again: ') !== password) throw new UsageError('the passwords do not match')
  } else {
    password = (await readAll(io)).split(/\r?\n/)[0] ?? ''
  }
  if (password === '') throw new UsageError('the password is empty (type it at the prompt, or pipe it on stdin)')
  return password
}
