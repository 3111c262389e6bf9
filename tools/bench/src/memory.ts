// The stack's resident memory: at rest, and the peak while the write sections run.
import { type Processes, rssMiB } from './proc-cpu';

export function memoryOf(processes: Processes): Record<string, number | null> {
  return Object.fromEntries(Object.entries(processes).map(([name, child]) => [name, rssMiB(child.pid)]));
}

/** Samples each process's RSS every 250 ms until `stop()`, which returns each one's peak (MiB). */
export function peakRssSampler(processes: () => Processes): { stop: () => Record<string, number> } {
  const peak: Record<string, number> = Object.fromEntries(Object.keys(processes()).map((name) => [name, 0]));
  const sampler = setInterval(() => {
    for (const [name, child] of Object.entries(processes())) peak[name] = Math.max(peak[name], rssMiB(child.pid) ?? 0);
  }, 250);
  // A run that fails half-way ends without waiting for the sampler.
  sampler.unref();
  return {
    stop: () => {
      clearInterval(sampler);
      return peak;
    },
  };
}
