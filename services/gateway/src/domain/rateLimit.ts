/** A fixed rate-limit window: which one `now` falls in, and when it resets. */
export function windowOf(now: Date, windowMs: number) {
  const start = Math.floor(now.getTime() / windowMs) * windowMs;
  return { start, resetsAt: start + windowMs, retryAfterSeconds: Math.max(1, Math.ceil((start + windowMs - now.getTime()) / 1000)) };
}

/** Which limit a request counts against: initiate and analyze per client, the rest per IP. */
export function limitFor(
  route: 'initiate' | 'analyze' | 'other',
  ids: { clientId: string; ip: string },
  limits: { initiate: number; analyze: number; global: number },
) {
  if (route === 'initiate') return { bucket: `initiate:${ids.clientId}`, limit: limits.initiate };
  if (route === 'analyze') return { bucket: `analyze:${ids.clientId}`, limit: limits.analyze };
  return { bucket: `ip:${ids.ip}`, limit: limits.global };
}
