import type { ReactNode } from "react";

/** One column of a `DataTable`: its heading (also its key) and what each row shows in it. */
export interface Column<T> {
  name: string;
  /** The heading is read by screen readers only (a column of buttons). */
  nameHidden?: boolean;
  className?: string;
  cell: (row: T) => ReactNode;
}

export interface DataTableProps<T> {
  /** Names the scrolling region to screen readers. */
  label: string;
  caption?: ReactNode;
  columns: readonly Column<T>[];
  rows: readonly T[];
  rowKey: (row: T) => string;
}

/**
 * A table of rows, one column per `Column`, that scrolls sideways on a narrow screen rather than
 * widening the page; the region is focusable so that a keyboard can scroll it too.
 */
export function DataTable<T>({ label, caption, columns, rows, rowKey }: DataTableProps<T>): ReactNode {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a region that scrolls must be reachable by keyboard to be scrolled (WCAG 2.1.1).
    <section className="table-scroll" aria-label={label} tabIndex={0}>
      <table>
        {caption === undefined ? null : <caption className="visually-hidden">{caption}</caption>}
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column.name} scope="col">
                {column.nameHidden === true ? <span className="visually-hidden">{column.name}</span> : column.name}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={rowKey(row)}>
              {columns.map((column) => (
                <td key={column.name} className={column.className}>
                  {column.cell(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
