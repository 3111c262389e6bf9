import { LogLevel, pinoLevelOf } from './kafka-client';

describe('pinoLevelOf', () => {
  it("maps each kafkajs level to the process logger's level of the same name", () => {
    expect([LogLevel.ERROR, LogLevel.WARN, LogLevel.INFO, LogLevel.DEBUG].map(pinoLevelOf)).toEqual(['error', 'warn', 'info', 'debug']);
  });

  it('writes nothing for NOTHING', () => {
    expect(pinoLevelOf(LogLevel.NOTHING)).toBeUndefined();
  });
});
