/** The evaluator the policy check relies on, on small cases whose answer is known by hand. */
import { admittedFlows, inCidr, selects, type Endpoint } from './network-flows';
import type { K8sObject } from './render';

const web: Endpoint = { name: 'web', namespace: 'app', labels: { role: 'web' }, ip: '10.0.0.1', namedPorts: { http: 8080 } };
const db: Endpoint = { name: 'db', namespace: 'app', labels: { role: 'db' }, ip: '10.0.0.2' };
const other: Endpoint = { name: 'other', namespace: 'elsewhere', labels: { role: 'web' }, ip: '172.16.0.9' };
const ports = [{ port: 8080, protocol: 'TCP' as const }, { port: 5432, protocol: 'TCP' as const }];

function policy(spec: object): K8sObject {
  return { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'p', namespace: 'app' }, spec };
}

describe('network flow evaluation', () => {
  it('admits everything between pods no policy selects', () => {
    expect(admittedFlows([], [web, db], new Set(['web']), ports, 'app').size).toBe(4);
  });

  it('denies what a selecting policy with no rule does not admit, and admits a named port only where the pod names it', () => {
    const policies = [
      policy({ podSelector: {}, policyTypes: ['Ingress', 'Egress'] }),
      policy({ podSelector: { matchLabels: { role: 'web' } }, policyTypes: ['Ingress', 'Egress'], ingress: [{ ports: [{ port: 'http' }] }], egress: [{ to: [{ podSelector: { matchLabels: { role: 'db' } } }], ports: [{ port: 5432 }] }] }),
      policy({ podSelector: { matchLabels: { role: 'db' } }, policyTypes: ['Ingress'], ingress: [{ from: [{ podSelector: { matchLabels: { role: 'web' } } }], ports: [{ port: 5432 }] }] }),
    ];
    expect([...admittedFlows(policies, [web, db, other], new Set(['web', 'db']), ports, 'app')].sort()).toEqual([
      'other -> web:8080/TCP',
      'web -> db:5432/TCP',
    ]);
  });

  it('matches namespaces by their name label and addresses by CIDR', () => {
    expect(selects({ matchExpressions: [{ key: 'role', operator: 'In', values: ['web'] }] }, { role: 'web' })).toBe(true);
    expect(selects({ matchExpressions: [{ key: 'role', operator: 'DoesNotExist' }] }, { role: 'web' })).toBe(false);
    expect(inCidr('10.20.3.4', '10.20.0.0/16')).toBe(true);
    expect(inCidr('10.21.0.1', '10.20.0.0/16')).toBe(false);
    const fromElsewhere = policy({ podSelector: {}, policyTypes: ['Ingress'], ingress: [{ from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'elsewhere' } } }] }] });
    expect([...admittedFlows([fromElsewhere], [web, other], new Set(['web']), ports, 'app')].filter((flow) => flow.endsWith('web:8080/TCP'))).toEqual(['other -> web:8080/TCP']);
  });
});
