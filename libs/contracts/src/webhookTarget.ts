import { BlockList, isIP } from 'node:net';

/**
 * Addresses a webhook may not reach unless private targets are allowed: this host, private
 * networks, link-local (cloud metadata lives there), carrier-grade NAT, multicast, reserved.
 */
const forbidden = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  forbidden.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  // Unspecified, loopback and the deprecated IPv4-compatible form (`::127.0.0.1`).
  ['::', 96],
  // 6to4 carries an IPv4 address in its prefix (`2002:7f00:1::`): no target of ours uses it.
  ['2002::', 16],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  forbidden.addSubnet(net, prefix, 'ipv6');
}

/** The IPv4 address an IPv6 address carries (mapped `::ffff:a.b.c.d` or NAT64 `64:ff9b::a.b.c.d`), if any. */
function embeddedIpv4(address: string): string | null {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1] ?? null;
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (!hex) return null;
  const high = parseInt(hex[1] ?? '0', 16);
  const low = parseInt(hex[2] ?? '0', 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/** True when an IP address is loopback, private, link-local or otherwise not on the public internet. */
export function isForbiddenAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 4) return forbidden.check(bare, 'ipv4');
  if (family === 6) {
    const v4 = embeddedIpv4(bare);
    if (v4) return forbidden.check(v4, 'ipv4');
    return forbidden.check(bare, 'ipv6');
  }
  return true;
}

export type TargetCheck = { ok: true; url: URL } | { ok: false; reason: string };

/**
 * The rules a webhook URL must meet before anything is sent: http(s) only; unless private
 * targets are allowed, https only and no host that is, or names, a non-public address. Names
 * are resolved and checked again when connecting (see the webhook client).
 */
export function checkWebhookUrl(raw: string, options: { allowPrivate: boolean }): TargetCheck {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'the webhook URL is not a valid URL' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return { ok: false, reason: `the webhook URL must use https, not ${url.protocol.replace(':', '')}` };
  }
  if (options.allowPrivate) return { ok: true, url };
  if (url.protocol !== 'https:') return { ok: false, reason: 'the webhook URL must use https' };
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (isIP(host) !== 0 && isForbiddenAddress(host)) {
    return { ok: false, reason: `the webhook host ${host} is not a public address` };
  }
  if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.local') || host.endsWith('.internal')) {
    return { ok: false, reason: `the webhook host ${host} is not a public name` };
  }
  return { ok: true, url };
}
