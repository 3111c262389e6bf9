/**
 * A LIKE pattern that matches `text` anywhere, literally: `%`, `_` and the escape
 * character itself lose their wildcard meaning. PostgreSQL's default LIKE escape
 * character is the backslash, so no ESCAPE clause is needed.
 */
export function containsPattern(text: string): string {
  return `%${escapeLike(text)}%`;
}

export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (character) => `\\${character}`);
}
