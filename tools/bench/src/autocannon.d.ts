// The part of autocannon 8's API the bench uses (the package ships no types).
declare module 'autocannon' {
  namespace autocannon {
    interface Request {
      method?: string;
      headers?: Record<string, string>;
      body?: string;
      setupRequest?: (request: { body?: string }) => { body?: string };
    }
    interface Options {
      url: string;
      headers?: Record<string, string>;
      connections?: number;
      duration?: number;
      amount?: number;
      pipelining?: number;
      requests?: Request[];
    }
    interface Result {
      requests: { average: number; total: number };
      latency: { p50: number; p99: number };
      '2xx': number;
      non2xx: number;
      errors: number;
      timeouts: number;
    }
  }
  function autocannon(options: autocannon.Options): Promise<autocannon.Result>;
  export = autocannon;
}
