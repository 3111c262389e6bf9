/**
 * What a set of NetworkPolicies lets through, by the rules of networking.k8s.io/v1: a pod selected
 * by a policy of a direction accepts in that direction only what one of those policies' rules
 * admits; a pod no policy selects is open. Evaluated for every pair of endpoints and every port of
 * interest, so a test can compare the whole set of flows with the list that should exist.
 * (No network plugin runs here; a real cluster's plugin is what enforces these.)
 */
import type { K8sObject } from './render';

export interface Endpoint {
  name: string;
  namespace: string;
  labels: Record<string, string>;
  ip: string;
  /** Named container ports, for rules that name a port. */
  namedPorts?: Record<string, number>;
}

export interface Port {
  port: number;
  protocol: 'TCP' | 'UDP';
}

export type Flow = `${string} -> ${string}:${number}/${'TCP' | 'UDP'}`;

interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist'; values?: string[] }[];
}
interface Peer {
  podSelector?: LabelSelector;
  namespaceSelector?: LabelSelector;
  ipBlock?: { cidr: string; except?: string[] };
}
interface Rule {
  ports?: { port?: number | string; protocol?: 'TCP' | 'UDP' }[];
  from?: Peer[];
  to?: Peer[];
}

export function selects(selector: LabelSelector | undefined, labels: Record<string, string>): boolean {
  if (!selector) return true;
  const byLabels = Object.entries(selector.matchLabels ?? {}).every(([key, value]) => labels[key] === value);
  const byExpressions = (selector.matchExpressions ?? []).every(({ key, operator, values = [] }) => {
    switch (operator) {
      case 'In':
        return key in labels && values.includes(labels[key]);
      case 'NotIn':
        return !(key in labels) || !values.includes(labels[key]);
      case 'Exists':
        return key in labels;
      case 'DoesNotExist':
        return !(key in labels);
    }
  });
  return byLabels && byExpressions;
}

function ipToNumber(ip: string): number {
  return ip.split('.').reduce((sum, part) => sum * 256 + Number(part), 0);
}

export function inCidr(ip: string, cidr: string): boolean {
  const [base, bits] = cidr.split('/');
  const size = 2 ** (32 - Number(bits));
  const start = Math.floor(ipToNumber(base) / size) * size;
  return ipToNumber(ip) >= start && ipToNumber(ip) < start + size;
}

function peerMatches(peer: Peer, policyNamespace: string, endpoint: Endpoint): boolean {
  if (peer.ipBlock) {
    return inCidr(endpoint.ip, peer.ipBlock.cidr) && !(peer.ipBlock.except ?? []).some((cidr) => inCidr(endpoint.ip, cidr));
  }
  const namespaceLabels = { 'kubernetes.io/metadata.name': endpoint.namespace };
  const inNamespace = peer.namespaceSelector ? selects(peer.namespaceSelector, namespaceLabels) : endpoint.namespace === policyNamespace;
  return inNamespace && selects(peer.podSelector, endpoint.labels);
}

function portMatches(rule: Rule, port: Port, destination: Endpoint): boolean {
  if (!rule.ports || rule.ports.length === 0) return true;
  return rule.ports.some((candidate) => {
    if ((candidate.protocol ?? 'TCP') !== port.protocol) return false;
    if (candidate.port === undefined) return true;
    if (typeof candidate.port === 'number') return candidate.port === port.port;
    return destination.namedPorts?.[candidate.port] === port.port;
  });
}

/** Whether the policies of one direction let `pod` exchange traffic with `peer` on `port`. */
function admitted(policies: K8sObject[], direction: 'Ingress' | 'Egress', pod: Endpoint, peer: Endpoint, port: Port, namespace: string): boolean {
  const applying = policies.filter(
    (policy) => (policy.metadata.namespace ?? namespace) === pod.namespace && selects(policy.spec.podSelector, pod.labels) && (policy.spec.policyTypes ?? ['Ingress']).includes(direction),
  );
  if (applying.length === 0) return true;
  const destination = direction === 'Ingress' ? pod : peer;
  return applying.some((policy) => {
    const rules: Rule[] = (direction === 'Ingress' ? policy.spec.ingress : policy.spec.egress) ?? [];
    return rules.some((rule) => {
      const peers = direction === 'Ingress' ? rule.from : rule.to;
      const fromPeer = !peers || peers.length === 0 || peers.some((candidate) => peerMatches(candidate, policy.metadata.namespace ?? namespace, peer));
      return fromPeer && portMatches(rule, port, destination);
    });
  });
}

/**
 * Every flow the policies admit between distinct endpoints of which at least one is a subject
 * (the pods the policies are about), as "source -> destination:port/protocol".
 */
export function admittedFlows(policies: K8sObject[], endpoints: Endpoint[], subjects: Set<string>, ports: Port[], namespace: string): Set<Flow> {
  const flows = new Set<Flow>();
  for (const source of endpoints) {
    for (const destination of endpoints) {
      if (source === destination || !(subjects.has(source.name) || subjects.has(destination.name))) continue;
      for (const port of ports) {
        if (admitted(policies, 'Egress', source, destination, port, namespace) && admitted(policies, 'Ingress', destination, source, port, namespace)) {
          flows.add(`${source.name} -> ${destination.name}:${port.port}/${port.protocol}`);
        }
      }
    }
  }
  return flows;
}
