import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { InvalidArgumentError } from '../platform/errors.js';

/**
 * Where a webhook may be sent. A webhook URL is chosen by whoever holds an admin key, and the
 * worker sending it sits inside the operator's network: without this check a subscription
 * could make the worker call the custody service, Redis or a cloud metadata endpoint. Names
 * are resolved and every address is checked when a subscription is created and again at
 * each delivery, where the checked address is the one connected to (no second resolution a
 * rebinding DNS server could answer differently).
 */
const RANGES: [string, [string, number, 'ipv4' | 'ipv6'][]][] = [
  ['loopback', [['127.0.0.0', 8, 'ipv4'], ['::1', 128, 'ipv6']]],
  ['unspecified', [['0.0.0.0', 8, 'ipv4'], ['::', 128, 'ipv6']]],
  ['link-local', [['169.254.0.0', 16, 'ipv4'], ['fe80::', 10, 'ipv6']]],
  [
    'private',
    [
      ['10.0.0.0', 8, 'ipv4'],
      ['172.16.0.0', 12, 'ipv4'],
      ['192.168.0.0', 16, 'ipv4'],
      ['100.64.0.0', 10, 'ipv4'],
      ['198.18.0.0', 15, 'ipv4'],
      ['fc00::', 7, 'ipv6'],
    ],
  ],
  ['multicast or reserved', [['224.0.0.0', 3, 'ipv4'], ['ff00::', 8, 'ipv6']]],
];

const LISTS = RANGES.map(([kind, subnets]) => {
  const list = new BlockList();
  for (const [net, prefix, type] of subnets) list.addSubnet(net, prefix, type);
  return [kind, list] as const;
});

/** `::ffff:a.b.c.d` and `::ffff:xxxx:yyyy` carry an IPv4 address: check that one. */
function unmapped(address: string): string {
  const m = /^::ffff:(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/i.exec(address);
  if (!m) return address;
  if (m[1]) return m[1];
  const hi = parseInt(m[2] as string, 16);
  const lo = parseInt(m[3] as string, 16);
  return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');
}

/** The kind of non-public address `address` is, or undefined for a public one. */
export function nonPublicKind(address: string): string | undefined {
  const ip = unmapped(address.replace(/^\[|\]$/g, ''));
  const type = isIP(ip) === 6 ? 'ipv6' : 'ipv4';
  return LISTS.find(([, list]) => list.check(ip, type))?.[0];
}

const ALLOW_HINT = 'webhook URLs must reach a public address (WEBHOOK_ALLOW_PRIVATE=true allows others)';

/** Refuses what cannot be a webhook URL: not http(s), credentials in it, no host. */
export function parseWebhookUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new InvalidArgumentError(`url '${raw}' is not a URL`, { field: 'url' });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new InvalidArgumentError(`url scheme '${url.protocol.replace(/:$/, '')}' is not allowed. Valid values: http, https`, { field: 'url' });
  }
  if (url.username || url.password) throw new InvalidArgumentError('url must not carry credentials; the signature authenticates deliveries', { field: 'url' });
  return url;
}

function refusal(host: string, address: string, kind: string): string {
  return host === address ? `${address} is a ${kind} address; ${ALLOW_HINT}` : `${host} resolves to ${address}, a ${kind} address; ${ALLOW_HINT}`;
}

function lookupAll(host: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => dnsLookup(host, { all: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))));
}

/** Checks every address `url`'s host stands for; throws a 422 naming the one refused and why. */
export async function checkWebhookTarget(url: URL, allowPrivate: boolean): Promise<void> {
  if (allowPrivate) return;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = (await lookupAll(host)).map((a) => a.address);
    } catch (e) {
      throw new InvalidArgumentError(`url host '${host}' cannot be resolved (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, { field: 'url' });
    }
  }
  for (const address of addresses) {
    const kind = nonPublicKind(address);
    if (kind) throw new InvalidArgumentError(refusal(host, address, kind), { field: 'url', reason: kind });
  }
}

/** A `lookup` for http.request that resolves as usual and fails the connection on a refused address. */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const list = addresses as LookupAddress[];
      const refused = allowPrivate ? undefined : list.map((a) => [a, nonPublicKind(a.address)] as const).find(([, kind]) => kind);
      if (refused) return callback(Object.assign(new Error(refusal(hostname, refused[0].address, refused[1] as string)), { code: 'ERR_WEBHOOK_ADDRESS' }), '', 0);
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
      const first = list[0] as LookupAddress;
      callback(null, first.address, first.family);
    });
  };
}
