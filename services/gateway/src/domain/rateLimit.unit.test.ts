import { addressGroup } from './rateLimit';

describe('addressGroup', () => {
  it('when the address is IPv4, plain or IPv4-mapped, then it counts as itself', () => {
    expect(addressGroup('203.0.113.9')).toBe('203.0.113.9');
    expect(addressGroup('::ffff:203.0.113.9')).toBe('203.0.113.9');
  });

  it('when IPv6 addresses share their first 64 bits, however written, then they count as one /64', () => {
    const group = '2001:db8:44:7::/64';
    for (const ip of [
      '2001:db8:44:7::1',
      '2001:0db8:0044:0007:ffff:1:2:3',
      '2001:DB8:44:7:a::b',
      '2001:db8:44:7:1:2:3:4%eth0',
    ]) {
      expect(addressGroup(ip)).toBe(group);
    }
    expect(addressGroup('2001:db8:44:8::1')).toBe('2001:db8:44:8::/64');
    expect(addressGroup('::1')).toBe('0:0:0:0::/64');
    expect(addressGroup('2001:db8::')).toBe('2001:db8:0:0::/64');
  });
});
