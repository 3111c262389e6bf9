import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LogLevel, kafkaConnectionSettings, kafkaSecurityFromEnv, pinoLevelOf } from './kafka-client';

describe('pinoLevelOf', () => {
  it("maps each kafkajs level to the process logger's level of the same name", () => {
    expect([LogLevel.ERROR, LogLevel.WARN, LogLevel.INFO, LogLevel.DEBUG].map(pinoLevelOf)).toEqual(['error', 'warn', 'info', 'debug']);
  });

  it('writes nothing for NOTHING', () => {
    expect(pinoLevelOf(LogLevel.NOTHING)).toBeUndefined();
  });
});

describe('kafkaSecurityFromEnv', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kafka-security-'));
  const password = join(dir, 'orders.password');
  const ca = join(dir, 'ca.pem');
  writeFileSync(password, 'not-a-real-secret\n', { mode: 0o600 });
  writeFileSync(ca, '-----BEGIN CERTIFICATE-----\nabc\n-----END CERTIFICATE-----\n');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads the principal, its password file and the CA', () => {
    expect(kafkaSecurityFromEnv({ KAFKA_SASL_USERNAME: 'orders', KAFKA_SASL_PASSWORD_FILE: password, KAFKA_TLS_CA_FILE: ca })).toEqual({
      sasl: { username: 'orders', password: 'not-a-real-secret' },
      tlsCa: '-----BEGIN CERTIFICATE-----\nabc\n-----END CERTIFICATE-----',
    });
  });

  it('refuses a connection without SCRAM or without TLS unless the benchmark of their cost says so', () => {
    expect(() => kafkaSecurityFromEnv({})).toThrow(/^Invalid configuration: KAFKA_SASL_USERNAME is required \(Kafka without SCRAM\): .*BUS_SECURITY_OFF_BENCH_ONLY=true/);
    expect(() => kafkaSecurityFromEnv({ KAFKA_SASL_USERNAME: 'orders', KAFKA_SASL_PASSWORD_FILE: password })).toThrow(
      /^Invalid configuration: KAFKA_TLS_CA_FILE is required \(Kafka without TLS\)/,
    );
    expect(() => kafkaSecurityFromEnv({ KAFKA_TLS_CA_FILE: ca })).toThrow(/KAFKA_SASL_USERNAME is required/);
    expect(kafkaSecurityFromEnv({ BUS_SECURITY_OFF_BENCH_ONLY: 'true' })).toEqual({});
  });

  it.each([
    [{ KAFKA_SASL_USERNAME: 'orders', KAFKA_TLS_CA_FILE: ca }, 'KAFKA_SASL_PASSWORD_FILE is required'],
    [{ KAFKA_SASL_PASSWORD_FILE: password, KAFKA_TLS_CA_FILE: ca }, 'KAFKA_SASL_USERNAME is required'],
    [{ KAFKA_SASL_USERNAME: 'orders', KAFKA_SASL_PASSWORD_FILE: join(dir, 'missing') }, 'KAFKA_SASL_PASSWORD_FILE cannot be read (ENOENT)'],
    [{ KAFKA_SASL_USERNAME: 'orders', KAFKA_SASL_PASSWORD_FILE: password, KAFKA_TLS_CA_FILE: join(dir, 'missing') }, 'KAFKA_TLS_CA_FILE cannot be read (ENOENT)'],
  ])('names the variable that is wrong (%o)', (env, message) => {
    expect(() => kafkaSecurityFromEnv(env)).toThrow(message);
  });

  it('never puts the password in an error', () => {
    const env = { KAFKA_SASL_USERNAME: 'orders', KAFKA_SASL_PASSWORD_FILE: password, KAFKA_TLS_CA_FILE: join(dir, 'missing') };
    expect(() => kafkaSecurityFromEnv(env)).toThrow('KAFKA_TLS_CA_FILE');
    expect(() => kafkaSecurityFromEnv(env)).not.toThrow(/not-a-real-secret/);
  });

  it('turns the settings into kafkajs SCRAM-SHA-512 over verified TLS', () => {
    expect(kafkaConnectionSettings({ sasl: { username: 'orders', password: 'p' }, tlsCa: 'PEM' })).toEqual({
      ssl: { ca: ['PEM'], rejectUnauthorized: true },
      sasl: { mechanism: 'scram-sha-512', username: 'orders', password: 'p' },
    });
  });
});
