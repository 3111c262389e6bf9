import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';

export interface HttpResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

export interface RequestOptions {
  headers?: Record<string, string | number>;
  /** Sent as is: the test decides the Content-Type. */
  body?: string | Buffer;
  /** Sent as `application/json`. */
  json?: unknown;
}

/** A plain HTTP request with full control over headers and body (fetch would add a Content-Type). */
export function call(baseUrl: string, method: string, path: string, options: RequestOptions = {}): Promise<HttpResponse> {
  const headers: Record<string, string | number> = { ...options.headers };
  let body = options.body;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['content-type'] ??= 'application/json';
  }
  if (body !== undefined && headers['transfer-encoding'] !== 'chunked') headers['content-length'] ??= Buffer.byteLength(body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(new URL(path, baseUrl), { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown;
        try {
          parsed = text ? JSON.parse(text) : undefined;
        } catch {
          parsed = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body: parsed });
      });
      res.on('error', reject);
    });
    // The server may answer (401, 413) before it has read the body and close the connection.
    req.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error)));
    if (body !== undefined) req.write(body);
    req.end();
  });
}
