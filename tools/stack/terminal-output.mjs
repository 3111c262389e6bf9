// How `npm start` shows the stack's output.
import pinoPretty from 'pino-pretty';

/**
 * The processes write JSON lines (their stdout is a pipe); on a terminal they read as text, one
 * coloured line each after the process's label. Redirected, the JSON lines pass unchanged.
 */
export function terminalOutput(stdout = process.stdout) {
  if (!stdout.isTTY) return stdout;
  const pretty = pinoPretty.prettyFactory({ colorize: true, singleLine: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,service' });
  return {
    write(text) {
      const [, label, line] = /^(\[[^\]]*\]\s*)(.*)\n$/s.exec(text) ?? [undefined, '', text];
      stdout.write(line.startsWith('{') ? `${label}${pretty(line)}` : text);
    },
  };
}
