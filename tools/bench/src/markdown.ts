// The report's Markdown pieces.

type Cell = string | number | null | undefined;

/** A Markdown table: the header, its rule, a row per entry. */
export function table(head: string[], rows: Cell[][]): string[] {
  return [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((row) => `| ${row.join(' | ')} |`)];
}

/** `report` with `lines` between the markers `<!-- name:begin -->` and `<!-- name:end -->`, added at the end if missing. */
export function between(report: string, marker: string, lines: string[]): string {
  const [begin, end] = [`<!-- ${marker}:begin -->`, `<!-- ${marker}:end -->`];
  const text = report.includes(begin) ? report : `${report}\n${begin}\n${end}\n`;
  return `${text.slice(0, text.indexOf(begin))}${begin}\n${lines.join('\n')}\n${text.slice(text.indexOf(end))}`;
}
