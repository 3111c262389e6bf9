import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { KAFKA_CHART_FILE, kafkaAccessTable, kafkaChartFileIsStale, kafkaChartTable, kafkaPrincipals, type KafkaChartTable } from '..';

const root = join(__dirname, '../../../..');

describe('the Kafka access table of the Helm chart', () => {
  it('is committed as the table makes it now (npx nx run contracts:kafka-chart writes it)', () => {
    expect(kafkaChartFileIsStale(root)).toBe(false);
  });

  it('counts as stale once a right in it differs from the table', () => {
    const copy = mkdtempSync(join(tmpdir(), 'kafka-chart-'));
    try {
      const file = join(copy, KAFKA_CHART_FILE);
      mkdirSync(dirname(file), { recursive: true });
      const table = JSON.parse(readFileSync(join(root, KAFKA_CHART_FILE), 'utf8')) as KafkaChartTable;
      writeFileSync(file, `${JSON.stringify(table, null, 2)}\n`);
      expect(kafkaChartFileIsStale(copy)).toBe(false);
      table.acls.orders[0].operations = ['Read', 'Write', 'Describe'];
      writeFileSync(file, `${JSON.stringify(table, null, 2)}\n`);
      expect(kafkaChartFileIsStale(copy)).toBe(true);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  it('gives the namespaced table when the chart puts kafka.namespace in front of every name', () => {
    const { acls } = kafkaChartTable();
    const prefixed = Object.fromEntries(
      kafkaPrincipals().map((principal) => [principal, acls[principal].map((acl) => ({ ...acl, name: `shop-${acl.name}` }))]),
    );
    expect(prefixed).toEqual(kafkaAccessTable('shop-'));
  });

  it('names a row for every principal, and the services among them', () => {
    const table = kafkaChartTable();
    expect(Object.keys(table.acls).sort()).toEqual(kafkaPrincipals().sort());
    for (const service of table.services) expect(kafkaPrincipals()).toContain(service);
    expect(table.admin).toBe('admin');
  });
});
