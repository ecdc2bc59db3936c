import { isIP, SocketAddress } from 'node:net';
import { z } from 'zod';

/**
 * An IP address in the one spelling Node reports a peer in: lower case, zeros compressed,
 * and an IPv4-mapped IPv6 address (`::ffff:10.0.0.7`, what a dual-stack socket reports for an
 * IPv4 peer) as the IPv4 address. The callback allow-list and the peer are both compared in
 * this form, so `FE80::1` matches the peer `fe80::1`. Text that is no IP address comes back as is.
 */
export function normaliseIp(ip: string | undefined): string {
  const family = ip ? isIP(ip) : 0;
  if (!ip || family === 0) return ip ?? '';
  const canonical = new SocketAddress({ address: ip, family: family === 6 ? 'ipv6' : 'ipv4' }).address;
  return canonical.replace(/^::ffff:(?=\d{1,3}(?:\.\d{1,3}){3}$)/, '');
}

/**
 * Comma-separated IP addresses, normalised. A range or a host name would never equal a peer
 * address, and an empty list would refuse every peer: each would silently lock out every
 * genuine caller, so they are refused at start instead.
 */
export const ipAddressList = () =>
  z.string().transform((text, ctx): string[] => {
    const entries = text
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const notIp = entries.filter((e) => isIP(e) === 0);
    if (entries.length === 0 || notIp.length > 0) {
      const found = entries.length === 0 ? 'no address' : `${notIp.map((e) => `'${e}'`).join(', ')} (not an IP address)`;
      ctx.addIssue({
        code: 'custom',
        message: `must be IP addresses separated by commas, such as 10.0.0.7,fd00::7 (no ranges, no host names); found ${found}`,
      });
      return z.NEVER;
    }
    return [...new Set(entries.map(normaliseIp))];
  });

/** A DNS name: labels of letters, digits, `-` and `_` (container names), not all digits. */
const HOST_NAME = /^(?=.{1,253}$)[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)*\.?$/;

/**
 * The interface to listen on: an IP address (IPv6 without brackets, as `listen` takes it) or a
 * host name. `localhost:8080` or `http://0.0.0.0` would pass as text and fail only in `listen`
 * with ENOTFOUND, after the start has begun.
 */
export const listenHost = () =>
  z
    .string()
    .refine(
      (text) => isIP(text) !== 0 || (HOST_NAME.test(text) && !/^[\d.]+$/.test(text)),
      'must be an IP address (0.0.0.0, ::, 127.0.0.1) or a host name alone: no scheme, port, path or brackets',
    );

/** TRUST_PROXY: how many hops in front are proxies, or which addresses and ranges are; nothing when empty. */
export interface TrustProxy {
  hops?: number;
  addresses?: string[];
}

const TRUST_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

/**
 * `false` (nothing), a hop count (`1`: the peer is the one proxy), or comma-separated addresses,
 * CIDR ranges (`10.0.0.0/8`, `fd00::/8`) and the names `loopback`, `linklocal`, `uniquelocal`.
 * `true` (every hop) is refused: any client could then name its own address.
 */
export const trustProxySetting = () =>
  z.string().transform((text, ctx): TrustProxy => {
    const value = text.trim();
    if (value === '' || value.toLowerCase() === 'false' || value === '0') return {};
    if (/^\d{1,3}$/.test(value)) return { hops: Number(value) };
    const entries = value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const bad = entries.filter((e) => {
      if (TRUST_NAMES.includes(e)) return false;
      const [address, prefix, more] = e.split('/');
      const family = isIP(address ?? '');
      if (family === 0 || more !== undefined) return true;
      return prefix !== undefined && !(/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 6 ? 128 : 32));
    });
    if (entries.length === 0 || bad.length > 0) {
      const found = value.toLowerCase() === 'true' ? "'true' (trusting every hop lets any client name its own address)" : bad.map((e) => `'${e}'`).join(', ');
      ctx.addIssue({
        code: 'custom',
        message: `must be false, a hop count such as 1, or addresses and CIDR ranges separated by commas (10.0.0.0/8, fd00::/8, loopback, linklocal, uniquelocal); found ${found}`,
      });
      return z.NEVER;
    }
    return { addresses: entries.map((e) => (e.includes('/') || TRUST_NAMES.includes(e) ? e : normaliseIp(e))) };
  });
