import { connect } from 'node:net'

/**
 * One HTTP/1.1 request written byte for byte, so header names keep their
 * case and duplicates reach the server as sent; resolves with the status and
 * the body once the server closes the connection.
 */
export function rawRequest (port: number, requestLine: string, lines: readonly string[]): Promise<{ status: number, body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    let data = ''
    socket.setEncoding('latin1')
    socket.on('data', (chunk: string) => { data += chunk })
    socket.on('error', reject)
    socket.on('end', () => resolve({ status: Number(data.slice(9, 12)), body: data.slice(data.indexOf('\r\n\r\n') + 4) }))
    socket.end([requestLine, 'Host: 127.0.0.1', 'Connection: close', ...lines, '', ''].join('\r\n'))
  })
}
