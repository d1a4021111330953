// Unit tests of the per-address cap key (spec "Handshake": 16 per address; reliability-tests §7.4 L5, §8 item 6).
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { addressKey, expandIPv6 } from '../../../adapters/transport/addressKey.ts';

describe('addressKey', () => {
  it('keys a plain IPv4 address as itself', () => {
    expect(addressKey('127.0.0.2')).toBe('127.0.0.2');
    expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
  });

  it('counts an IPv4-mapped IPv6 address as its IPv4, in every spelling', () => {
    for (const mapped of ['::ffff:127.0.0.2', '::FFFF:127.0.0.2', '0:0:0:0:0:ffff:7f00:2', '::ffff:7f00:0002']) {
      expect(addressKey(mapped), mapped).toBe('127.0.0.2');
    }
  });

  it('keys IPv6 by its /64 prefix', () => {
    expect(addressKey('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8:1:2:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:0DB8:0001:0002:0:0:0:7')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8:1:3::1')).not.toBe(addressKey('2001:db8:1:2::1'));
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
  });

  it('keeps the zone of a link-local address apart', () => {
    expect(addressKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64%eth0');
    expect(addressKey('fe80::1%eth1')).not.toBe(addressKey('fe80::1%eth0'));
  });

  it('keys unparsable text as itself, without throwing', () => {
    for (const odd of ['', 'localhost', '1:2:3', '::ffff:999.0.0.1', '1::2::3', 'g::1']) {
      expect(addressKey(odd)).toBe(odd);
    }
  });

  it('puts every address of one /64 under one key (17 addresses of one prefix are one address)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 4, maxLength: 4 }), (host) => {
        const address = `2001:db8:aa:bb:${host.map((g) => g.toString(16)).join(':')}`;
        expect(addressKey(address)).toBe('2001:db8:aa:bb::/64');
      }),
    );
  });

  it('expands IPv6 text to eight groups', () => {
    expect(expandIPv6('::')).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    expect(expandIPv6('64:ff9b::192.0.2.33')).toEqual([0x64, 0xff9b, 0, 0, 0, 0, 0xc000, 0x221]);
    expect(expandIPv6('1:2:3:4:5:6:7:8')).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(expandIPv6('1:2:3:4:5:6:7:8:9')).toBeUndefined();
    expect(expandIPv6('1:2:3:4:5:6:7::8')).toBeUndefined();
  });
});
