import type { IncomingMessage } from 'node:http';
import { BlockList, isIP } from 'node:net';
import type { TrustProxy } from '../config/address-schemas.js';
import { normaliseIp } from '../config/address-schemas.js';

/** Whether the hop at `address`, `hop` steps from this server (0 = the peer), is a proxy to believe. */
export type ProxyTrust = (address: string, hop: number) => boolean;

/** Named ranges TRUST_PROXY accepts, as Express's `trust proxy` names them. */
const NAMED: Record<string, string[]> = {
  loopback: ['127.0.0.1/8', '::1/128'],
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
  uniquelocal: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
};

/**
 * TRUST_PROXY as a function Express's `trust proxy` takes too, so `req.ip` and
 * `clientAddress` agree: nothing trusted, the first `hops` hops, or the listed addresses and ranges.
 */
export function proxyTrust(setting: TrustProxy): ProxyTrust {
  if (setting.hops !== undefined) {
    const hops = setting.hops;
    return (_address, hop) => hop < hops;
  }
  const entries = setting.addresses ?? [];
  if (entries.length === 0) return () => false;
  const list = new BlockList();
  for (const entry of entries.flatMap((e) => NAMED[e] ?? [e])) {
    const [address, prefix] = entry.split('/') as [string, string | undefined];
    const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(prefix), type);
  }
  return (address) => {
    const ip = normaliseIp(address);
    const family = isIP(ip);
    return family !== 0 && list.check(ip, family === 6 ? 'ipv6' : 'ipv4');
  };
}

const TRUST = Symbol('proxyTrust');
const ADDRESS = Symbol('clientAddress');

type Marked = IncomingMessage & { [TRUST]?: ProxyTrust; [ADDRESS]?: string };

/** Called once per request as it arrives, before any lane: how `clientAddress` reads this request. */
export function trustProxiesOf(req: IncomingMessage, trust: ProxyTrust): void {
  (req as Marked)[TRUST] = trust;
}

/**
 * The client a request comes from, normalised (`normaliseIp`): the peer, unless it is a trusted
 * proxy (TRUST_PROXY); then X-Forwarded-For is read from its right end, past every trusted
 * hop, to the first address not trusted (Express's `req.ip` rule). The one answer for the rate
 * limits, the failed-authentication throttle, the callback allow-list and the logs, in every lane.
 */
export function clientAddress(req: IncomingMessage): string {
  const marked = req as Marked;
  const known = marked[ADDRESS];
  if (known !== undefined) return known;
  const peer = req.socket?.remoteAddress ?? '';
  const trust = marked[TRUST];
  let address = peer;
  if (trust && trust(peer, 0)) {
    const header = req.headers['x-forwarded-for'];
    const forwarded = (Array.isArray(header) ? header.join(',') : (header ?? ''))
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .reverse();
    for (let i = 0; i < forwarded.length; i++) {
      address = forwarded[i] as string;
      if (!trust(address, i + 1)) break;
    }
  }
  const result = normaliseIp(address) || 'unknown';
  marked[ADDRESS] = result;
  return result;
}
