/**
 * Retries `check` until it stops throwing: for state that other processes reach
 * asynchronously (a consumer applying an event), instead of sleeping a fixed time.
 */
export async function eventually<T>(check: () => Promise<T> | T, timeoutMs = 15_000, intervalMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  }
}
