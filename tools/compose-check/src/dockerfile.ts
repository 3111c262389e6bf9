/**
 * A small Dockerfile reader: enough to check the stages, users and commands of
 * this repository's Dockerfile, not a general parser (no heredocs, no escape
 * directive, no parser directives other than `# syntax`).
 */
export interface Instruction {
  keyword: string;
  /** Everything after the keyword, continuation lines joined with single spaces. */
  args: string;
  line: number;
}

export interface Stage {
  /** The image or stage the stage starts from. */
  base: string;
  name?: string;
  instructions: Instruction[];
}

export function parseDockerfile(text: string): Instruction[] {
  const instructions: Instruction[] = [];
  const lines = text.split(/\r?\n/);
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index].trim();
    if (line === '' || line.startsWith('#')) continue;
    const start = index;
    let joined = line;
    while (joined.endsWith('\\') && index + 1 < lines.length) {
      joined = joined.slice(0, -1).trimEnd();
      index++;
      const next = lines[index].trim();
      // Comment lines inside a continued instruction are dropped, as Docker does.
      if (next.startsWith('#')) continue;
      joined = `${joined} ${next}`;
    }
    const match = /^(\S+)\s*(.*)$/.exec(joined);
    if (match) instructions.push({ keyword: match[1].toUpperCase(), args: match[2].trim(), line: start + 1 });
  }
  return instructions;
}

export function stages(instructions: Instruction[]): Stage[] {
  const result: Stage[] = [];
  for (const instruction of instructions) {
    if (instruction.keyword === 'FROM') {
      const words = instruction.args.split(/\s+/).filter((word) => !word.startsWith('--'));
      const name = words[1]?.toUpperCase() === 'AS' ? words[2] : undefined;
      result.push({ base: words[0], name, instructions: [] });
    } else if (result.length > 0) {
      result[result.length - 1].instructions.push(instruction);
    }
  }
  return result;
}

/** `ENV A=1 B=2` (and the legacy `ENV A 1`) as a map; no quoting beyond plain double quotes. */
export function envOf(stage: Stage): Record<string, string> {
  const env: Record<string, string> = {};
  for (const { args } of stage.instructions.filter((instruction) => instruction.keyword === 'ENV')) {
    if (!args.includes('=')) {
      const [key, ...rest] = args.split(/\s+/);
      env[key] = rest.join(' ');
      continue;
    }
    for (const pair of args.match(/[A-Za-z_][A-Za-z0-9_]*=(?:"[^"]*"|\S*)/g) ?? []) {
      const at = pair.indexOf('=');
      env[pair.slice(0, at)] = pair.slice(at + 1).replace(/^"(.*)"$/, '$1');
    }
  }
  return env;
}
