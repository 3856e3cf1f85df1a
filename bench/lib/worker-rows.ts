// The cells one benchmark worker collects (growth-worker.ts,
// basic-growth-worker.ts, postgres-worker.ts): each row measured on its
// own, so a failing row becomes its cell's note and the next rows go on.

/** A measured figure (a string: one already written out), or why there is none. */
export type WorkerCell<V extends number | string = number | string> = V | { failed: string }

/** What a worker sends back: its cells by row id (`'*'`: why the rows it did not get to have none), or why the whole column failed. */
export type WorkerReply<V extends number | string = number | string> = { rows: Record<string, WorkerCell<V>> } | { failed: string }

export class Rows<V extends number | string = number | string> {
  readonly cells: Record<string, WorkerCell<V>> = {}
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

  set (id: string, cell: WorkerCell<V>): void {
    this.cells[id] = cell
    this.log(`${id} ${typeof cell === 'number' ? cell.toPrecision(3) : typeof cell === 'string' ? cell : cell.failed}`)
  }

  /** Measures one row; a failure is that row's cell. */
  async row (id: string, measure: () => WorkerCell<V> | Promise<WorkerCell<V>>): Promise<void> {
    try {
      this.set(id, await measure())
    } catch (err) {
      this.set(id, { failed: this.messageOf(err) })
    }
  }

  /** Measures several rows together (`measure` answers them by id); a failure is every one's cell. */
  async rows (ids: readonly string[], measure: () => Promise<Record<string, WorkerCell<V>>>): Promise<void> {
    try {
      const measured = await measure()
      for (const id of ids) this.set(id, measured[id] ?? { failed: 'not measured' })
    } catch (err) {
      for (const id of ids) this.set(id, { failed: this.messageOf(err) })
    }
  }

  /**
   * Runs the worker's `work` and answers what it sends back: the cells; or,
   * when `work` throws (a store could not be opened or seeded), the cells
   * measured before with `'*'` failed for the rest, or the whole column
   * failed when there are none.
   */
  async collect (work: () => Promise<void>): Promise<WorkerReply<V>> {
    try {
      await work()
      return { rows: this.cells }
    } catch (err) {
      const failed = { failed: this.messageOf(err) }
      return Object.keys(this.cells).length > 0 ? { rows: { ...this.cells, '*': failed } } : failed
    }
  }
}

export function check (ok: boolean, what: string): void {
  if (!ok) throw new Error(`unexpected answer: ${what}`)
}

/** Up to `size` indices spread evenly over [0, n). */
export const spread = (n: number, size: number): number[] => Array.from({ length: Math.min(n, size) }, (_, j) => Math.floor(j * n / Math.min(n, size)))
