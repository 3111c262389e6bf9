import { chartFile } from '../chart-file';
import { callersOf, NATS_IDENTITIES, RPC_CALLS, rpcServedBy, type NatsIdentity } from './nats-authorization';

/**
 * The RPC table as the Helm chart reads it (`.Files.Get`): Helm cannot run this code, so the chart
 * renders each user's permissions from this file as natsPermissions does, and chart-check checks
 * that the two agree. `npx nx run contracts:nats-chart` writes it.
 */
export const NATS_CHART_FILE = 'deploy/helm/petstore/files/nats-rpc.json';

export interface NatsChartEntry {
  /** `<service>.<cmd>` of each request it sends, before the subject prefix. */
  sends: string[];
  /** `<service>.<cmd>` of each request it answers. */
  serves: string[];
  /** The identities whose inboxes it answers on. */
  callers: NatsIdentity[];
}

export function natsChartTable(): Record<NatsIdentity, NatsChartEntry> {
  const subject = ({ service, rpc }: { service: string; rpc: { pattern: { cmd: string } } }) => `${service}.${rpc.pattern.cmd}`;
  const entries = NATS_IDENTITIES.map((identity): [NatsIdentity, NatsChartEntry] => {
    const isService = identity !== 'gateway';
    return [identity, { sends: RPC_CALLS[identity].map(subject), serves: isService ? rpcServedBy(identity).map(subject) : [], callers: isService ? callersOf(identity) : [] }];
  });
  return Object.fromEntries(entries) as Record<NatsIdentity, NatsChartEntry>;
}

const file = chartFile(NATS_CHART_FILE, natsChartTable);

/** Whether the committed file differs from what the RPC table makes now. */
export const natsChartFileIsStale = (root: string): boolean => file.isStale(root);

export const writeNatsChartFile = (root: string): void => file.write(root);
