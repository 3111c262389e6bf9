/** The command of a pattern as Nest hands it over serialized: `{"cmd":"orders.place"}` is `orders.place`. */
export function commandOf(serialized: string): string {
  try {
    const cmd = (JSON.parse(serialized) as { cmd?: unknown } | null)?.cmd;
    return typeof cmd === 'string' ? cmd : serialized;
  } catch {
    return serialized;
  }
}
