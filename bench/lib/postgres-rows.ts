// The cells one worker of the PostgreSQL benchmark collects: each row
// measured on its own, so a failing row becomes its cell's note and the
// next rows go on (as in growth-worker.ts).
import type { Cell } from './postgres-kinds.js'

export class Rows {
  readonly cells: Record<string, Cell> = {}
  readonly #label: string
  readonly #dir: string

  /**
   * @param label names the worker in progress lines (stderr)
   * @param dir the run's temporary directory, left out of failure notes (it differs from run to run)
   */
  constructor (label: string, dir: string) {
    this.#label = label
    this.#dir = dir
  }

  messageOf (err: unknown): string {
    return (err instanceof Error ? `${(err as { code?: string }).code ?? err.name}: ${err.message}` : String(err)).replaceAll(this.#dir, '<tmp>')
  }

  log (text: string): void {
    console.error(`  ${this.#label}: ${text}`)
  }

  set (id: string, cell: Cell): void {
    this.cells[id] = cell
    this.log(`${id} ${typeof cell === 'number' ? cell.toPrecision(3) : typeof cell === 'string' ? cell : cell.failed}`)
  }

  /** Measures one row; a failure is that row's cell. */
  async row (id: string, measure: () => Cell | Promise<Cell>): Promise<void> {
    try {
      this.set(id, await measure())
    } catch (err) {
      this.set(id, { failed: this.messageOf(err) })
    }
  }

  /** Measures several rows together (`measure` answers them by id); a failure is every one's cell. */
  async rows (ids: readonly string[], measure: () => Promise<Record<string, Cell>>): Promise<void> {
    try {
      const measured = await measure()
      for (const id of ids) this.set(id, measured[id] ?? { failed: 'not measured' })
    } catch (err) {
      for (const id of ids) this.set(id, { failed: this.messageOf(err) })
    }
  }
}

export function check (ok: boolean, what: string): void {
  if (!ok) throw new Error(`unexpected answer: ${what}`)
}

/** Up to `size` indices spread evenly over [0, n). */
export const spread = (n: number, size: number): number[] => Array.from({ length: Math.min(n, size) }, (_, j) => Math.floor(j * n / Math.min(n, size)))
