import type { AsyncApiChannel, AsyncApiDocument, AsyncApiMessage, AsyncApiOperation } from './asyncapi-document';

/*
 * The document as a Markdown page (docs/asyncapi/README.md): the same content as
 * asyncapi.json, for reading on the repository's web view without any tool.
 */

interface SchemaNode {
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  format?: string;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  description?: string;
  required?: string[];
  properties?: Record<string, SchemaNode>;
}

export function asyncApiMarkdown(document: AsyncApiDocument): string {
  const info = document['info'] as { title: string; version: string; description: string };
  const lines: string[] = [
    `# ${info.title}`,
    '',
    '<!-- Generated from libs/contracts by `npx nx run contracts:asyncapi`; do not edit. -->',
    '',
    `AsyncAPI ${document.asyncapi} document: [asyncapi.json](asyncapi.json). Version ${info.version}.`,
    '',
    info.description,
    '',
    '## Topics',
    '',
    '| topic | partitions | key | messages | published by | consumed by (consumer group) |',
    '|---|---|---|---|---|---|',
  ];
  for (const [id, channel] of Object.entries(document.channels)) {
    const kafka = (channel['bindings'] as { kafka: { partitions: number; 'x-key': string } }).kafka;
    const senders = servicesOf(document, id, 'send');
    const receivers = servicesOf(document, id, 'receive');
    lines.push(
      `| \`${channel.address}\` | ${kafka.partitions} | ${kafka['x-key']} | ${Object.keys(channel.messages).map((message) => `[${message}](#${anchor(message)})`).join(', ')} | ${senders.join(', ') || '–'} | ${receivers.join(', ') || '–'} |`,
    );
  }
  lines.push('', '## Operations', '');
  for (const [id, operation] of Object.entries(document.operations)) {
    lines.push(`- **${id}** (${operation.action}, \`${addressOf(document, operation)}\`): ${operation['summary'] as string}`);
  }
  const [event] = Object.values(document.components.messages).filter((message) => message.name !== 'DeadLetter');
  lines.push(
    '',
    '## The envelope',
    '',
    'Every event, whatever its type: the value of the Kafka message, JSON in UTF-8.',
    '',
    ...fieldTable(envelopeOnly(event.payload as SchemaNode), (field) => field !== 'type' && field !== 'schemaVersion'),
    '## Kafka headers',
    '',
    'On every event the outbox relay publishes (`always`: on every one of them).',
    '',
    ...headerTable(event.headers as SchemaNode),
  );
  for (const channel of Object.values(document.channels)) {
    lines.push('', `## \`${channel.address}\``, '', channel['description'] as string);
    for (const messageId of Object.keys(channel.messages)) {
      lines.push('', ...messageSection(messageId, document.components.messages[messageId], channel, event));
    }
  }
  return `${lines.join('\n').replace(/\n{3,}/g, '\n\n')}\n`;
}

function messageSection(id: string, message: AsyncApiMessage, channel: AsyncApiChannel, event: AsyncApiMessage): string[] {
  const lines = [
    `### ${id}`,
    '',
    `${message['title'] as string}, on \`${channel.address}\`. ${message['summary'] as string}`,
    '',
    message['description'] as string,
    '',
    `Key: ${(message.bindings.kafka.key as SchemaNode).description ?? 'string'}`,
    '',
  ];
  if (JSON.stringify(message.headers) === JSON.stringify(event.headers)) {
    lines.push('Headers: the [Kafka headers](#kafka-headers) of every event.', '');
  } else {
    lines.push(...headerTable(message.headers as SchemaNode));
  }
  const payload = message.payload as SchemaNode;
  if (payload.properties) {
    lines.push('The [envelope](#the-envelope), with:', '', ...fieldTable(payload, (field) => field === 'type' || field === 'schemaVersion' || field === 'payload'));
  } else {
    lines.push(payload.description ?? '', '');
  }
  for (const example of message.examples) {
    lines.push(
      `Example \`${example.name}\`: ${example.summary}`,
      '',
      '```json',
      JSON.stringify({ headers: example.headers, key: (example.payload as { key?: string }).key, value: example.payload }, null, 2),
      '```',
    );
  }
  return lines;
}

function headerTable(headers: SchemaNode): string[] {
  return [
    '| header | always | value |',
    '|---|---|---|',
    ...Object.entries(headers.properties ?? {}).map(
      ([name, schema]) =>
        `| \`${name}\` | ${headers.required?.includes(name) ? 'yes' : 'no'} | ${cell(schema.description ?? '')}${schema.pattern ? ` (\`${cell(schema.pattern)}\`)` : ''} |`,
    ),
    '',
  ];
}

/** An event's envelope with its payload left to each message. */
function envelopeOnly(envelope: SchemaNode): SchemaNode {
  const payload: SchemaNode = { type: 'object', description: "The event's data: its schema is its type's (below)." };
  return { ...envelope, properties: { ...envelope.properties, payload } };
}

/** The fields of an envelope schema, those of its payload nested under `payload.`. */
function fieldTable(envelope: SchemaNode, include: (field: string) => boolean): string[] {
  const top: SchemaNode = {
    ...envelope,
    properties: Object.fromEntries(Object.entries(envelope.properties ?? {}).filter(([field]) => include(field))),
  };
  return ['| field | type | required | rule |', '|---|---|---|---|', ...fieldRows(top, ''), ''];
}

function fieldRows(schema: SchemaNode, prefix: string): string[] {
  return Object.entries(schema.properties ?? {}).flatMap(([name, field]) => {
    const path = `${prefix}${name}`;
    const row = `| \`${path}\` | ${typeOf(field)} | ${schema.required?.includes(name) ? 'yes' : 'no'} | ${cell(ruleOf(field))} |`;
    return [row, ...(field.properties ? fieldRows(field, `${path}.`) : [])];
  });
}

function typeOf(schema: SchemaNode): string {
  const type = Array.isArray(schema.type) ? schema.type.join(' \\| ') : (schema.type ?? 'any');
  return schema.format ? `${type} (${schema.format})` : type;
}

function ruleOf(schema: SchemaNode): string {
  const rules: string[] = [];
  if (schema.const !== undefined) rules.push(`= ${JSON.stringify(schema.const)}`);
  if (schema.enum) rules.push(`one of ${schema.enum.map((value) => `\`${String(value)}\``).join(', ')}`);
  if (schema.minimum !== undefined || schema.maximum !== undefined) {
    rules.push(`${schema.minimum ?? '…'} to ${schema.maximum ?? '…'}`);
  }
  if (schema.minLength !== undefined || schema.maxLength !== undefined) {
    rules.push(`${schema.minLength ?? 0} to ${schema.maxLength ?? '…'} characters`);
  }
  if (schema.description) rules.push(schema.description);
  return rules.join('; ');
}

function servicesOf(document: AsyncApiDocument, channelId: string, action: 'send' | 'receive'): string[] {
  return Object.values(document.operations)
    .filter((operation) => operation.action === action && operation.channel.$ref === `#/channels/${channelId}`)
    .map((operation) => (operation['tags'] as { name: string }[])[0].name);
}

function addressOf(document: AsyncApiDocument, operation: AsyncApiOperation): string {
  return document.channels[operation.channel.$ref.split('/').pop() as string].address;
}

function anchor(heading: string): string {
  return heading.toLowerCase().replace(/[^a-z0-9-]/g, '');
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}
