export interface ProbeOptions {
  /** How long one probe may take before it counts as a failure. */
  timeoutMs?: number;
  /** How long a result is reused, so that a burst of readiness requests costs one round trip. */
  reuseMs?: number;
  now?: () => number;
}

/**
 * A readiness check that asks the dependency itself (a round trip), not a flag set when the
 * connection was first made: a broker or database that stops answering turns it false within
 * `timeoutMs`, and it turns true again with the first answer after they return. At most one
 * round trip is in flight; while a slow one is pending, later checks wait at most `timeoutMs`
 * for it and then answer false.
 */
export function roundTripCheck(roundTrip: () => Promise<unknown>, options: ProbeOptions = {}): () => Promise<boolean> {
  const timeoutMs = options.timeoutMs ?? 2_000;
  const reuseMs = options.reuseMs ?? 1_000;
  const now = options.now ?? Date.now;
  let pending: Promise<boolean> | undefined;
  let last: { at: number; ok: boolean } | undefined;
  return async () => {
    if (last && now() - last.at < reuseMs) return last.ok;
    pending ??= roundTrip().then(
      () => true,
      () => false,
    );
    const settled = pending;
    void settled.finally(() => {
      if (pending === settled) pending = undefined;
    });
    let timer: NodeJS.Timeout | undefined;
    const ok = await Promise.race([
      settled,
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), timeoutMs);
        timer.unref();
      }),
    ]);
    clearTimeout(timer);
    last = { at: now(), ok };
    return ok;
  };
}
