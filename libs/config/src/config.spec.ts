import { ConfigError, hostPort, int, instant, oneOf, port, postgresUrl, readConfig, str } from './config';

describe('readConfig', () => {
  const shape = {
    port: port('HTTP_PORT', 3001),
    url: postgresUrl('DATABASE_URL', 'postgres://postgres@127.0.0.1:5432/petstore_catalog'),
    mode: oneOf('NODE_ENV', ['development', 'production'] as const, 'development'),
  };

  it('applies defaults when variables are unset or blank', () => {
    expect(readConfig(shape, { HTTP_PORT: '  ' })).toEqual({
      port: 3001,
      url: 'postgres://postgres@127.0.0.1:5432/petstore_catalog',
      mode: 'development',
    });
  });

  it.each([
    [{ HTTP_PORT: 'abc' }, 'HTTP_PORT'],
    [{ HTTP_PORT: '70000' }, 'HTTP_PORT'],
    [{ DATABASE_URL: 'mysql://x/y' }, 'DATABASE_URL'],
    [{ DATABASE_URL: 'postgres://host' }, 'DATABASE_URL'],
    [{ DATABASE_URL: 'postgres://u@db:5432/orders?sslmode=require' }, 'DATABASE_URL'],
    [{ DATABASE_URL: 'postgres://u@db:5432/orders?sslmode=verify-full&sslrootcert=/nonexistent/ca.pem' }, 'DATABASE_URL'],
    [{ DATABASE_URL: 'postgres://u@db:5432/orders?sslrootcert=/etc/hostname' }, 'DATABASE_URL'],
    [{ NODE_ENV: 'staging' }, 'NODE_ENV'],
  ])('names the variable in the error for %p', (env, variable) => {
    expect(() => readConfig(shape, env)).toThrow(ConfigError);
    expect(() => readConfig(shape, env)).toThrow(new RegExp(`^Invalid configuration: ${variable} `));
  });

  it('takes TLS to PostgreSQL that verifies the server, with readable files', () => {
    const verified = 'postgres://u@db:5432/orders?sslmode=verify-full&sslrootcert=/etc/hostname';
    expect(readConfig(shape, { DATABASE_URL: verified }).url).toBe(verified);
    expect(readConfig(shape, { DATABASE_URL: 'postgres://u@db:5432/orders?sslmode=disable' }).url).toContain('disable');
    expect(() => readConfig(shape, { DATABASE_URL: 'postgres://u@db:5432/orders?sslmode=prefer' })).toThrow(
      "DATABASE_URL sslmode must be disable or verify-full (got \"prefer\": it would not check the server's certificate)",
    );
  });

  it('requires variables without a default', () => {
    expect(() => readConfig({ secret: str('SECRET') }, {})).toThrow('SECRET is required but not set');
  });

  it('parses host:port, integers with bounds and instants', () => {
    const parsed = readConfig(
      { rpc: hostPort('CATALOG_RPC', '127.0.0.1:4001'), limit: int('LIMIT', 5, { min: 0 }), at: instant('AT', '2027-06-30T23:59:59Z') },
      { CATALOG_RPC: 'catalog:4101', LIMIT: '0' },
    );
    expect(parsed).toEqual({ rpc: { host: 'catalog', port: 4101 }, limit: 0, at: new Date('2027-06-30T23:59:59Z') });
    expect(() => readConfig({ rpc: hostPort('CATALOG_RPC', '') }, { CATALOG_RPC: 'catalog' })).toThrow('CATALOG_RPC');
    expect(() => readConfig({ at: instant('AT', '') }, { AT: 'tomorrow' })).toThrow('AT must be an ISO 8601');
  });
});
