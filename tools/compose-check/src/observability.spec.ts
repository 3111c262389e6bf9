/**
 * The compose stack's `observability` profile: Prometheus' configuration and alert rules are
 * checked by promtool itself (Debian's `prometheus` package; .ci/run installs it), the alerts
 * against synthetic series, and the Grafana dashboard against the metrics the services export.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { parse } from 'yaml';

const root = join(__dirname, '..', '..', '..');
const observability = join(root, 'deploy', 'observability');
const read = (file: string): string => readFileSync(join(root, file), 'utf8');

interface Panel {
  title: string;
  type: string;
  datasource?: { type: string; uid: string };
  targets?: { expr: string; datasource?: { uid: string } }[];
  panels?: Panel[];
}

const dashboardFiles = readdirSync(join(observability, 'grafana', 'dashboards')).filter((file) => file.endsWith('.json'));
const compose = parse(read('docker-compose.yml')) as {
  services: Record<string, { image?: string; volumes?: string[]; environment?: Record<string, string> }>;
};

/** Every petstore_* metric the apps and libs register (prom-client `name`, or processMetric's first argument). */
function exportedMetrics(): Set<string> {
  const names = new Set<string>();
  const visit = (directory: string): void => {
    for (const entry of readdirSync(directory)) {
      const path = join(directory, entry);
      if (statSync(path).isDirectory()) {
        if (entry !== 'node_modules') visit(path);
      } else if (/\.ts$/.test(entry) && !/\.(int-|e2e-)?spec\.ts$/.test(entry)) {
        const text = readFileSync(path, 'utf8');
        for (const match of text.matchAll(/(?:processMetric\(\s*|\bname:\s*)'(petstore_[a-z0-9_]+)'/g)) names.add(match[1]);
      }
    }
  };
  visit(join(root, 'apps'));
  visit(join(root, 'libs'));
  return names;
}

/** The series names a PromQL expression reads: petstore_* (histogram suffixes stripped) and `up`. */
function metricsOf(expr: string): string[] {
  const petstore = [...expr.matchAll(/\bpetstore_[a-z0-9_]+/g)].map((match) => match[0].replace(/_(bucket|sum|count)$/, ''));
  return [...new Set([...petstore, ...(/\bup\b/.test(expr) ? ['up'] : [])])];
}

function promtool(...args: string[]): string {
  const found = spawnSync('promtool', ['--version']);
  if (found.error) throw new Error('promtool is missing: apt-get install prometheus (Debian) gives it');
  return execFileSync('promtool', args, { cwd: observability, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

describe('Prometheus (deploy/observability)', () => {
  it('has a valid configuration that loads the alert rules', () => {
    expect(promtool('check', 'config', 'prometheus.yml')).toContain('SUCCESS: prometheus.yml is valid prometheus config file syntax');
  });

  it('has valid alert rules, each passing its unit test with synthetic series', () => {
    expect(promtool('check', 'rules', 'alerts.yml')).toMatch(/SUCCESS: \d+ rules found/);
    expect(promtool('test', 'rules', 'alerts.test.yml')).toContain('SUCCESS');
  });

  it('scrapes each service on its HTTP port and the gateway on its metrics listener', () => {
    const config = parse(readFileSync(join(observability, 'prometheus.yml'), 'utf8')) as {
      scrape_configs: { job_name: string; dns_sd_configs?: { names: string[]; port: number }[] }[];
    };
    const targets = Object.fromEntries(
      config.scrape_configs
        .filter((job) => job.dns_sd_configs)
        .map((job) => [job.job_name, job.dns_sd_configs?.map((sd) => `${sd.names.join(',')}:${sd.port}`)]),
    );
    expect(targets).toEqual({
      catalog: ['catalog:3001'],
      orders: ['orders:3002'],
      inventory: ['inventory:3003'],
      gateway: ['gateway:9464'],
    });
    for (const name of ['catalog', 'orders', 'inventory']) {
      expect(compose.services[name].environment?.HTTP_PORT).toBe(targets[name]?.[0].split(':')[1]);
    }
  });

  it('alerts only on metrics the services export', () => {
    const exported = exportedMetrics();
    const rules = parse(readFileSync(join(observability, 'alerts.yml'), 'utf8')) as {
      groups: { rules: { alert: string; expr: string }[] }[];
    };
    const alerts = rules.groups.flatMap((group) => group.rules);
    expect(alerts.map((rule) => rule.alert).sort()).toEqual([
      'PetstoreConsumerLagGrowing',
      'PetstoreDeadLetters',
      'PetstoreOrderDecisionSlow',
      'PetstoreOrdersUndecided',
      'PetstoreOutboxStuck',
      'PetstoreRateLimitNotShared',
      'PetstoreTargetDown',
    ]);
    for (const rule of alerts) {
      for (const metric of metricsOf(rule.expr)) {
        expect({ alert: rule.alert, metric, exported: metric === 'up' || exported.has(metric) }).toEqual({ alert: rule.alert, metric, exported: true });
      }
    }
  });
});

describe('Grafana (deploy/observability/grafana)', () => {
  const datasources = parse(read('deploy/observability/grafana/provisioning/datasources/datasources.yml')) as {
    datasources: { uid: string; type: string; url: string }[];
  };

  it('provisions Prometheus and Jaeger on the compose network', () => {
    expect(datasources.datasources.map(({ uid, type, url }) => ({ uid, type, url }))).toEqual([
      { uid: 'prometheus', type: 'prometheus', url: 'http://prometheus:9090' },
      { uid: 'jaeger', type: 'jaeger', url: 'http://jaeger:16686' },
    ]);
    const providers = parse(read('deploy/observability/grafana/provisioning/dashboards/dashboards.yml')) as {
      providers: { options: { path: string } }[];
    };
    const mounted = (compose.services.grafana.volumes ?? []).map((volume) => volume.split(':'));
    for (const provider of providers.providers) {
      const mount = mounted.find(([, target]) => target === provider.options.path);
      expect(mount && relative(root, join(root, mount[0]))).toBe('deploy/observability/grafana/dashboards');
    }
  });

  it.each(dashboardFiles)('%s parses, and every query names metrics the services export, on a provisioned data source', (file) => {
    const dashboard = JSON.parse(read(`deploy/observability/grafana/dashboards/${file}`)) as { uid: string; title: string; panels: Panel[] };
    expect(dashboard.uid).toEqual(expect.any(String));
    const panels = dashboard.panels.flatMap((panel) => [panel, ...(panel.panels ?? [])]);
    const queries = panels.flatMap((panel) => (panel.targets ?? []).map((target) => ({ panel, target })));
    expect(queries.length).toBeGreaterThan(0);
    const exported = exportedMetrics();
    const uids = new Set(datasources.datasources.map((source) => source.uid));
    for (const { panel, target } of queries) {
      const metrics = metricsOf(target.expr);
      expect({ panel: panel.title, expr: target.expr, names: metrics.length > 0 }).toEqual({ panel: panel.title, expr: target.expr, names: true });
      for (const metric of metrics) {
        expect({ panel: panel.title, metric, exported: exported.has(metric) }).toEqual({ panel: panel.title, metric, exported: true });
      }
      expect(uids.has(target.datasource?.uid ?? panel.datasource?.uid ?? '')).toBe(true);
    }
  });

  it('shows the saga: orders by outcome, decision p50/p99, consumer lag, outbox age and backlog, dead letters, refusals, undecided orders', () => {
    const dashboard = JSON.parse(read('deploy/observability/grafana/dashboards/saga.json')) as { panels: Panel[] };
    const exprs = dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr)).join('\n');
    for (const needed of [
      'petstore_orders_decided_total',
      'histogram_quantile(0.5, sum by (le) (rate(petstore_order_decision_seconds_bucket',
      'histogram_quantile(0.99, sum by (le) (rate(petstore_order_decision_seconds_bucket',
      'petstore_consumer_lag',
      'petstore_outbox_oldest_age_seconds',
      'petstore_outbox_backlog',
      'petstore_consumer_dead_lettered_total',
      'petstore_consumer_refused_total',
      'petstore_orders_oldest_placed_age_seconds',
    ]) {
      expect(exprs).toContain(needed);
    }
  });
});

describe('docker-compose.yml, observability profile', () => {
  it('pins every observability image to a release', () => {
    for (const name of ['prometheus', 'jaeger', 'grafana']) {
      expect({ name, image: compose.services[name].image }).toEqual({ name, image: expect.stringMatching(/^[a-z/-]+:v?\d+\.\d+\.\d+$/) });
    }
  });

  it('mounts files that exist', () => {
    for (const name of ['prometheus', 'grafana']) {
      for (const volume of compose.services[name].volumes ?? []) {
        const source = volume.split(':')[0];
        if (source.startsWith('./')) expect({ name, source, exists: existsSync(join(root, source)) }).toEqual({ name, source, exists: true });
      }
    }
  });

  it('lets the operator point every service at the trace backend and choose its sampler, unset by default', () => {
    for (const name of ['catalog', 'orders', 'inventory', 'gateway']) {
      const environment = compose.services[name].environment;
      expect({
        name,
        endpoint: environment?.OTEL_EXPORTER_OTLP_ENDPOINT,
        sampler: environment?.OTEL_TRACES_SAMPLER,
        samplerArg: environment?.OTEL_TRACES_SAMPLER_ARG,
      }).toEqual({
        name,
        endpoint: '${OTEL_EXPORTER_OTLP_ENDPOINT:-}',
        sampler: '${OTEL_TRACES_SAMPLER:-}',
        samplerArg: '${OTEL_TRACES_SAMPLER_ARG:-}',
      });
    }
  });

  // Compose v2 as the operator runs it, or Debian's docker-compose 1.29 (which the container
  // stand-ins install) on a copy without the top-level `name:` it rejects; skipped without either.
  const composeConfig = (): ((...args: string[]) => string) | undefined => {
    const env = { ...process.env, POSTGRES_PASSWORD: 'a0b1c2d3e4f5', API_KEYS: '[]' };
    if (spawnSync('docker', ['compose', 'version']).status === 0) {
      return (...args) => execFileSync('docker', ['compose', ...args], { cwd: root, env, encoding: 'utf8' });
    }
    if (spawnSync('docker-compose', ['version']).status !== 0) return undefined;
    const copy = join(mkdtempSync(join(tmpdir(), 'compose-check-')), 'docker-compose.yml');
    writeFileSync(copy, read('docker-compose.yml').replace(/^name: .*\n/m, ''));
    return (...args) =>
      execFileSync('docker-compose', ['-f', copy, '-p', 'petstore', '--project-directory', root, ...args], { cwd: root, env, encoding: 'utf8' });
  };
  const composeCli = composeConfig();
  const services = (output: string): string[] => output.split('\n').filter(Boolean).sort();
  (composeCli ? it : it.skip)('is accepted by `docker compose --profile observability config`', () => {
    // Throws unless Compose accepts the whole file; the profile's membership is checked above by reading it.
    expect(composeCli?.('--profile', 'observability', 'config')).toContain('jaegertracing/all-in-one');
    const all = services(composeCli?.('--profile', 'observability', 'config', '--services') ?? '');
    expect(all).toEqual(expect.arrayContaining(['gateway', 'grafana', 'jaeger', 'prometheus']));
  });
});
