import {
  purgeDeadLetters,
  readDeadLetters,
  replayDeadLetters,
  selectDeadLetters,
  type DeadLetter,
  type DeadLetterTools,
} from './dead-letters';

const USAGE = `Usage: dlt <command> [--json]
  list                 the dead-lettered events not purged yet
  show <selector>      one entry in full: headers and value
  replay <selector>... publish entries again to their original topic (or --all)
  purge                mark every listed entry as handled; they are no longer listed
A selector is <partition>:<offset>, an event id, or an offset that only one partition has.`;

/**
 * `dlt list | show <selector> | replay <selector>... | replay --all | purge`, with `--json` for
 * scripts. Writes to `out`, returns the process exit code.
 */
export async function runDeadLetterCommand(
  tools: DeadLetterTools,
  args: string[],
  out: { write(text: string): unknown },
  err: { write(text: string): unknown } = out,
): Promise<number> {
  const json = args.includes('--json');
  const all = args.includes('--all');
  const [command, ...selectors] = args.filter((arg) => arg !== '--json' && arg !== '--all');
  const print = (human: string, data: unknown) =>
    out.write(json ? `${JSON.stringify(data, null, 2)}\n` : human.endsWith('\n') ? human : `${human}\n`);
  try {
    switch (command) {
      case 'list': {
        const letters = await readDeadLetters(tools);
        // Scripts get the whole entry, so they can filter on the event itself (jq '.value | fromjson').
        print(table(tools.topic, letters), letters.map(detailed));
        return 0;
      }
      case 'show': {
        if (selectors.length !== 1) break;
        const [letter] = selectDeadLetters(await readDeadLetters(tools), selectors);
        print(details(letter), detailed(letter));
        return 0;
      }
      case 'replay': {
        if (all === selectors.length > 0) break;
        const letters = await readDeadLetters(tools);
        const chosen = all ? letters : selectDeadLetters(letters, selectors);
        const replayed = await replayDeadLetters(tools, chosen);
        print(
          replayed.length === 0
            ? 'Nothing to replay.'
            : replayed
                .map(
                  (one) =>
                    `replayed ${one.letter.partition}:${one.letter.offset} (${one.letter.eventType ?? '?'} ${one.letter.eventId ?? '?'}) ` +
                    `→ ${one.topic}[${one.partition}]@${one.offset}`,
                )
                .join('\n'),
          replayed.map((one) => ({ ...summary(one.letter), replayedTo: { topic: one.topic, partition: one.partition, offset: one.offset } })),
        );
        return 0;
      }
      case 'purge': {
        if (selectors.length > 0) break;
        const letters = await readDeadLetters(tools);
        await purgeDeadLetters(tools, letters);
        print(
          `purged ${letters.length} dead letter(s) from ${tools.topic}` +
            letters.map((one) => `\n  ${one.partition}:${one.offset} ${one.eventType ?? '?'} ${one.eventId ?? '?'}`).join(''),
          { purged: letters.map(summary) },
        );
        return 0;
      }
    }
  } catch (error) {
    err.write(`dlt ${command}: ${error instanceof Error ? error.message : String(error)}${refusedHint(error)}\n`);
    return 1;
  }
  err.write(`${USAGE}\n`);
  return 2;
}

interface KafkaFailure {
  name?: string;
  type?: string;
  cause?: KafkaFailure;
  errors?: KafkaFailure[];
}

/**
 * The broker's refusal, told as what to do: kafkajs reports a refused consumer group only as a
 * coordinator it could not find, which reads like an outage.
 */
function refusedHint(error: unknown): string {
  const refused = (failure: KafkaFailure | undefined): boolean =>
    !!failure &&
    (failure.name === 'KafkaJSGroupCoordinatorNotFound' ||
      !!failure.type?.endsWith('_AUTHORIZATION_FAILED') ||
      refused(failure.cause) ||
      (failure.errors ?? []).some(refused));
  return refused(error as KafkaFailure)
    ? ' (the broker refused this principal: dlt runs as KAFKA_SASL_USERNAME=dead-letters, whose rights cover the dead-letter topics and their tools\' groups)'
    : '';
}

function summary(letter: DeadLetter) {
  return {
    partition: letter.partition,
    offset: letter.offset,
    eventType: letter.eventType ?? null,
    eventId: letter.eventId ?? null,
    key: letter.key?.toString('utf8') ?? null,
    originalTopic: letter.originalTopic,
    originalPartition: letter.originalPartition,
    originalOffset: letter.originalOffset,
    consumerGroup: letter.consumerGroup,
    attempts: letter.attempts,
    errorName: letter.errorName,
    error: letter.error,
    failedAt: letter.failedAt,
  };
}

function detailed(letter: DeadLetter) {
  return { ...summary(letter), headers: letter.headers, value: letter.value?.toString('utf8') ?? null };
}

function table(topic: string, letters: DeadLetter[]): string {
  if (letters.length === 0) return `${topic}: no dead letters.`;
  const rows = letters.map((one) => [
    `${one.partition}:${one.offset}`,
    one.failedAt,
    one.eventType ?? '?',
    one.eventId ?? '?',
    `${one.originalTopic}[${one.originalPartition}]@${one.originalOffset}`,
    String(one.attempts),
    oneLine(`${one.errorName}: ${one.error}`, 80),
  ]);
  const header = ['AT', 'FAILED', 'TYPE', 'EVENT ID', 'FROM', 'ATTEMPTS', 'ERROR'];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column].length)));
  const line = (cells: string[]) => cells.map((cell, column) => cell.padEnd(widths[column])).join('  ').trimEnd();
  return [`${topic}: ${letters.length} dead letter(s)`, line(header), ...rows.map(line)].join('\n');
}

function details(letter: DeadLetter): string {
  const fields = Object.entries(summary(letter)).map(([name, value]) => `${name}: ${value ?? ''}`);
  const headers = Object.entries(letter.headers).map(([name, value]) => `  ${name}: ${value}`);
  return [...fields, 'headers:', ...headers, 'value:', prettyValue(letter.value)].join('\n');
}

function prettyValue(value: Buffer | null): string {
  if (!value) return '(none)';
  const text = value.toString('utf8');
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
