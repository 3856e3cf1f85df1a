// How the store benchmarks' tables write their cells (growth.ts,
// basic-growth.ts, session-list.ts, postgres.ts): figures rounded to what
// they can say, failures and skips as lettered notes under the table.

/** A figure, a figure already written out, why there is none (`failed`), or why it was not run (`skipped`). */
export type Shown = number | string | { failed: string } | { skipped: string }

/** Notes under the tables: each distinct text once, lettered, the cells pointing at them. */
export class Notes {
  readonly #texts: string[] = []

  letter (text: string): string {
    let at = this.#texts.indexOf(text)
    if (at === -1) at = this.#texts.push(text) - 1
    return String.fromCharCode(97 + (at % 26)) + (at >= 26 ? String(at) : '')
  }

  lines (): string[] {
    return this.#texts.map((text) => `- (${this.letter(text)}) ${text.replaceAll('|', '\\|')}`)
  }

  /** The notes after a blank line, or nothing when there are none. */
  section (): string[] {
    return this.#texts.length === 0 ? [] : ['', ...this.lines()]
  }
}

/** Three significant figures at most, two for values under 1. */
export const figure = (x: number): string => x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x >= 1 ? x.toFixed(2) : x.toPrecision(2)

/** `12 345`: a whole number with a space between thousands. */
export const thousands = (n: number): string => n.toLocaleString('en-US').replaceAll(',', ' ')

/** A cell: a figure by `format`, a note's letter for a failure or skip ("n/m" when not measured, "✗" when failed), empty when absent. */
export function showCell (cell: Shown | undefined, notes: Notes, format: (x: number) => string = figure): string {
  if (cell === undefined) return ''
  if (typeof cell === 'number') return format(cell)
  if (typeof cell === 'string') return cell
  if ('skipped' in cell) return `n/m (${notes.letter(cell.skipped)})`
  return cell.failed.startsWith('not measured') ? `n/m (${notes.letter(cell.failed)})` : `✗ (${notes.letter(cell.failed)})`
}

/** A row of {@link sizeTable}: a heading (its label as written, the cells empty), or a label and its cells. */
export type TableRow = string | readonly [label: string, cells: readonly string[]]

/** A markdown table of one measurement per row and one column per size (`columns`: their headings). */
export function sizeTable (columns: readonly string[], rows: readonly TableRow[]): string[] {
  return [
    `| measurement | ${columns.join(' | ')} |`,
    `| --- | ${columns.map(() => '---:').join(' | ')} |`,
    ...rows.map((row) => typeof row === 'string'
      ? `| ${row} | ${columns.map(() => '').join(' | ')} |`
      : `| ${row[0]} | ${row[1].join(' | ')} |`)
  ]
}
