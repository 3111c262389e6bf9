// What a run does, from its arguments and environment.

export interface ChaosOptions {
  /** `--short`: the scenarios marked short, gentler, without writing the report (a stage of `npm test`). */
  short: boolean;
  /** `--cluster`: only the scaled stack's scenarios. */
  onlyCluster: boolean;
  /** Not `--single`: the scaled stack's scenarios too. */
  withCluster: boolean;
  /** CHAOS_ONLY=<part of a name>: only the scenarios whose name contains it (while working on one). */
  only?: string;
  /** CHAOS_RATE: orders offered per second (20). */
  rate: number;
  /**
   * The whole run stops by itself after this, whatever state it is in: a bound on a hang, not on
   * speed. The short suite takes 7–10 minutes on a 2-core host, builds and both stacks included.
   */
  runLimitMinutes: number;
}

export function chaosOptions(args: string[], env: Record<string, string | undefined>): ChaosOptions {
  const short = args.includes('--short');
  return {
    short,
    onlyCluster: args.includes('--cluster'),
    withCluster: !args.includes('--single'),
    only: env.CHAOS_ONLY || undefined,
    rate: Number(env.CHAOS_RATE ?? 20),
    // Twice the time a run takes on this project's machines (the full one 19–22 minutes, the short one 7–9).
    runLimitMinutes: short ? 18 : 45,
  };
}
