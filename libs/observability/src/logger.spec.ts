import { context, ROOT_CONTEXT, trace, type Context, type ContextManager } from '@opentelemetry/api';
import { AsyncLocalStorage } from 'node:async_hooks';
import { withLogContext } from './log-context';
import { createLogger } from './logger';
import { NestPinoLogger } from './nest-logger';

/** The lines a logger wrote, parsed: each must be one JSON object. */
function capture(): { lines: Array<Record<string, unknown>>; destination: { write(line: string): void } } {
  const lines: Array<Record<string, unknown>> = [];
  return { lines, destination: { write: (line) => lines.push(JSON.parse(line) as Record<string, unknown>) } };
}

/** What a tracing SDK registers: the active context follows async work. */
class StorageContextManager implements ContextManager {
  private readonly storage = new AsyncLocalStorage<Context>();
  active = (): Context => this.storage.getStore() ?? ROOT_CONTEXT;
  with = <A extends unknown[], F extends (...args: A) => ReturnType<F>>(ctx: Context, fn: F, thisArg?: ThisParameterType<F>, ...args: A) =>
    this.storage.run(ctx, () => fn.call(thisArg, ...args));
  bind = <T>(_ctx: Context, target: T): T => target;
  enable = (): this => this;
  disable = (): this => this;
}

describe('createLogger', () => {
  it('writes one JSON object per line with the service, an ISO time, the level name and the message', () => {
    const { lines, destination } = capture();
    createLogger({ service: 'orders', destination }).info('started');
    expect(lines).toEqual([{ level: 'info', time: expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/), service: 'orders', pid: process.pid, msg: 'started' }]);
  });

  it('adds the fields bound around the work that logs, and only there', async () => {
    const { lines, destination } = capture();
    const logger = createLogger({ service: 'inventory', destination });
    await withLogContext({ requestId: 'r-1', correlationId: 'r-1', eventId: 'e-1', eventType: 'OrderPlaced' }, async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      logger.info('reserved');
    });
    logger.info('idle');
    expect(lines[0]).toMatchObject({ service: 'inventory', requestId: 'r-1', correlationId: 'r-1', eventId: 'e-1', eventType: 'OrderPlaced', msg: 'reserved' });
    expect(lines[1]).not.toHaveProperty('requestId');
  });

  it('adds the trace and span ids of the active span', () => {
    const { lines, destination } = capture();
    const logger = createLogger({ service: 'gateway', destination });
    const spanContext = { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: 1 };
    context.setGlobalContextManager(new StorageContextManager());
    try {
      context.with(trace.setSpan(context.active(), trace.wrapSpanContext(spanContext)), () => logger.warn('slow'));
      logger.warn('outside');
    } finally {
      context.disable();
    }
    expect(lines[0]).toMatchObject({ traceId: spanContext.traceId, spanId: spanContext.spanId, msg: 'slow' });
    expect(lines[1]).not.toHaveProperty('traceId');
  });

  it.each([
    ['error', ['error']],
    ['warn', ['error', 'warn']],
    ['log', ['error', 'warn', 'info']],
    ['debug', ['error', 'warn', 'info', 'debug']],
    ['verbose', ['error', 'warn', 'info', 'debug', 'trace']],
  ] as const)('at LOG_LEVEL %s writes %j', (level, written) => {
    const { lines, destination } = capture();
    const logger = createLogger({ service: 's', level, destination });
    for (const method of ['trace', 'debug', 'info', 'warn', 'error'] as const) logger[method](method);
    expect(lines.map((line) => line['level'])).toEqual([...written].reverse());
  });
});

describe('NestPinoLogger', () => {
  it("keeps Nest's context, the stack of an error and the message", () => {
    const { lines, destination } = capture();
    const nest = new NestPinoLogger(createLogger({ service: 'catalog', destination }));
    nest.log('Nest application successfully started', 'NestApplication');
    nest.error('Handler failed', 'Error: boom\n    at x', 'RpcErrorFilter');
    nest.error('No context', 'Error: bare\n    at y');
    nest.warn({ topic: 't', lag: 3 }, 'Consumer');
    nest.debug('hidden at the default level', 'X');
    expect(lines).toEqual([
      expect.objectContaining({ level: 'info', context: 'NestApplication', msg: 'Nest application successfully started' }),
      expect.objectContaining({ level: 'error', context: 'RpcErrorFilter', stack: 'Error: boom\n    at x', msg: 'Handler failed' }),
      expect.objectContaining({ level: 'error', stack: 'Error: bare\n    at y', msg: 'No context' }),
      expect.objectContaining({ level: 'warn', context: 'Consumer', topic: 't', lag: 3 }),
    ]);
    expect(lines[2]).not.toHaveProperty('context');
  });
});
