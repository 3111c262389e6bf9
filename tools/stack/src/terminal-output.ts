// How `npm start` and `npm run cluster` show the stack's output.
import { prettyFactory } from 'pino-pretty';
import type { TextOutput } from './processes';

/**
 * The processes write JSON lines (their stdout is a pipe); on a terminal they read as text, one
 * coloured line each after the process's label. Redirected, the JSON lines pass unchanged.
 */
export function terminalOutput(stdout: NodeJS.WriteStream = process.stdout): TextOutput {
  if (!stdout.isTTY) return stdout;
  const pretty = prettyFactory({ colorize: true, singleLine: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,service' });
  return {
    write(text: string) {
      const [, label, line] = /^(\[[^\]]*\]\s*)(.*)\n$/s.exec(text) ?? [undefined, '', text];
      return stdout.write(line.startsWith('{') ? `${label}${pretty(line)}` : text);
    },
  };
}
