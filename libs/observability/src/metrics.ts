import { register, type Metric } from 'prom-client';

/**
 * A metric of the process's one registry (prom-client's default, served on GET /metrics),
 * created the first time it is asked for: tests start several services in one process.
 */
export function processMetric<M extends Metric>(name: string, create: (name: string) => M): M {
  return (register.getSingleMetric(name) as M | undefined) ?? create(name);
}
