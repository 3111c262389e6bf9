// What the cluster section runs, shared by its measurement and its report.

/**
 * The cluster's brokers start with the section, and a new JVM spends its first minutes compiling:
 * measured on a fresh cluster, the C1/C2 compiler threads took 60 % of the brokers' CPU during the
 * first capacity run, which made the brokers half of the cluster's CPU per order. A broker in
 * service has long been compiled, as the single broker of the other sections is; so saga load runs
 * unmeasured until the compilers take under WARM_JIT_SHARE of the brokers' CPU.
 */
export const WARM_JIT_SHARE = 0.1;
export const WARMUP_MAX_RUNS = 8;
/** The open-loop rate the cluster and the single broker are compared at (orders/s). */
export const CLUSTER_RATE = 250;
/** The reads through HAProxy that show the RPC spread (requests/s, seconds). */
export const READ_RATE = 200;
export const CLUSTER_READ_SECONDS = 10;
