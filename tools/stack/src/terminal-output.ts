// How `npm start` and `npm run cluster` show the stack's output.
import { Writable } from 'node:stream';
import { prettyFactory } from 'pino-pretty';

/**
 * The processes write JSON lines (their stdout is a pipe); on a terminal they read as text, one
 * coloured line each after the process's label. Redirected, the JSON lines pass unchanged.
 */
export function terminalOutput(stdout: NodeJS.WriteStream = process.stdout): Writable {
  if (!stdout.isTTY) return stdout;
  const pretty = prettyFactory({ colorize: true, singleLine: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,service' });
  return new Writable({
    decodeStrings: false,
    write(text: string, _encoding, done) {
      const [, label, line] = /^(\[[^\]]*\]\s*)(.*)\n$/s.exec(text) ?? [undefined, '', text];
      stdout.write(line.startsWith('{') ? `${label}${pretty(line)}` : text);
      done();
    },
  });
}
