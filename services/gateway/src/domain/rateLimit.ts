/** A fixed rate-limit window: which one `now` falls in, and when it resets. */
export function windowOf(now: Date, windowMs: number) {
  const start = Math.floor(now.getTime() / windowMs) * windowMs;
  return {
    start,
    resetsAt: start + windowMs,
    retryAfterSeconds: Math.max(1, Math.ceil((start + windowMs - now.getTime()) / 1000)),
  };
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

/**
 * The address a failed authentication is counted against: an IPv4 address as it is (also when
 * written as IPv4-mapped IPv6), an IPv6 address by its /64, the smallest block a single
 * subscriber is given, so stepping through one's own /64 gives no fresh count.
 */
export function addressGroup(ip: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip);
  if (mapped) return mapped[1]!;
  if (!ip.includes(':')) return ip;
  const [head = '', tail] = ip.toLowerCase().split('%')[0]!.split('::') as [string, string | undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  // An embedded IPv4 tail is two groups; it never reaches the first four.
  const groups =
    tail === undefined
      ? left
      : [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  const prefix = groups.slice(0, 4).map((g) => (/^[0-9a-f]{1,4}$/.test(g) ? g.replace(/^0+(?=.)/, '') : '0'));
  while (prefix.length < 4) prefix.push('0');
  return `${prefix.join(':')}::/64`;
}
