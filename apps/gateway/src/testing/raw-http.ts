import { connect } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  /** True when the server closed the connection without answering. */
  closedSilently: boolean;
}

/**
 * Sends bytes exactly as given (a request no HTTP client would send: no Host, a broken body)
 * and reads the first response, or notices the server closing the connection. `endAfterWrite`
 * false keeps the socket open, as a client whose request never completes would.
 */
export function rawRequest(port: number, request: string | Buffer, options: { endAfterWrite?: boolean; timeoutMs?: number } = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(request);
      if (options.endAfterWrite ?? false) socket.end();
    });
    let data = Buffer.alloc(0);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${options.timeoutMs ?? 5000} ms`));
    }, options.timeoutMs ?? 5000);
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      const text = data.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end === -1) return resolve({ status: 0, headers: {}, body: undefined, closedSilently: true });
      const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) headers[line.slice(0, line.indexOf(':')).toLowerCase()] = line.slice(line.indexOf(':') + 1).trim();
      const length = Number(headers['content-length'] ?? 0);
      const bodyText = data.subarray(end + 4, end + 4 + length).toString('utf8');
      let body: unknown;
      try {
        body = bodyText ? JSON.parse(bodyText) : undefined;
      } catch {
        body = bodyText;
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body, closedSilently: false });
    };
    socket.on('data', (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      const text = data.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end === -1) return;
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(text.slice(0, end))?.[1] ?? 0);
      if (data.length >= end + 4 + length) finish();
    });
    socket.on('close', finish);
    socket.on('error', () => undefined);
  });
}
