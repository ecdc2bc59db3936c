import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { InvalidArgumentError } from '../platform/errors.js';
import { redactUrl } from './redact-url.js';

/**
 * Where a webhook may be sent. A webhook URL is chosen by whoever holds an admin key, and the
 * worker sending it sits inside the operator's network: without this check a subscription
 * could make the worker call the custody service, Redis or a cloud metadata endpoint. Names
 * are resolved and every address is checked when a subscription is created and again at
 * each delivery, where the checked address is the one connected to (no second resolution a
 * rebinding DNS server could answer differently).
 */
/**
 * The verdict is by address class (ipaddr.js's range names): only `unicast` passes. An IPv6
 * form that carries an IPv4 address (IPv4-mapped, SIIT, NAT64, 6to4, Teredo) is judged by
 * the IPv4 address it carries; IPv6 outside global unicast (2000::/3), the deprecated
 * IPv4-compatible form (`::a.b.c.d`) and the local-use NAT64 prefix are refused outright.
 */
const KINDS: Record<string, string> = {
  loopback: 'loopback',
  unspecified: 'unspecified',
  linkLocal: 'link-local',
  private: 'private',
  carrierGradeNat: 'private',
  uniqueLocal: 'private',
  deprecatedSiteLocal: 'site-local',
  multicast: 'multicast or reserved',
  broadcast: 'multicast or reserved',
  reserved: 'multicast or reserved',
};

const kindOf = (range: string) => KINDS[range] ?? `special-purpose (${range})`;

const ipv4 = (hi: number, lo: number) => ipaddr.IPv4.parse([hi >> 8, hi & 255, lo >> 8, lo & 255].join('.'));

/** The IPv4 addresses an IPv6 address of a translation range carries, with the range's name for messages. */
function embeddedIPv4(ip: ipaddr.IPv6, range: string): { what: string; addresses: ipaddr.IPv4[] } | undefined {
  const p = ip.parts as number[];
  const at = (i: number) => p[i] as number;
  switch (range) {
    case 'ipv4Mapped':
    case 'rfc6145':
      return { what: 'IPv4-mapped', addresses: [ipv4(at(6), at(7))] };
    case 'rfc6052':
      // 64:ff9b::/96 carries it in its last 32 bits; 64:ff9b:1::/48 is for local use only.
      return at(2) === 0 ? { what: 'NAT64', addresses: [ipv4(at(6), at(7))] } : undefined;
    case '6to4':
      return { what: '6to4', addresses: [ipv4(at(1), at(2))] };
    case 'teredo':
      // The Teredo server, and the client's address (stored inverted).
      return { what: 'Teredo', addresses: [ipv4(at(2), at(3)), ipv4(~at(6) & 0xffff, ~at(7) & 0xffff)] };
    default:
      return undefined;
  }
}

function ipv6Kind(ip: ipaddr.IPv6): string | undefined {
  const range = ip.range() as string;
  const embedded = embeddedIPv4(ip, range);
  if (embedded) {
    for (const v4 of embedded.addresses) {
      const kind = ipv4Kind(v4);
      if (kind) return embedded.what === 'IPv4-mapped' ? kind : `${kind} (${v4.toString()} inside a ${embedded.what} address)`;
    }
    return undefined;
  }
  if (range === 'rfc6052') return 'private (local-use NAT64 prefix)';
  if (range !== 'unicast') return kindOf(range);
  const p = ip.parts as number[];
  if (p.slice(0, 6).every((x) => x === 0)) return 'multicast or reserved (deprecated IPv4-compatible form)';
  if ((p[0] as number) >> 13 !== 1) return 'multicast or reserved (outside global unicast 2000::/3)';
  return undefined;
}

function ipv4Kind(ip: ipaddr.IPv4): string | undefined {
  const range = ip.range() as string;
  return range === 'unicast' ? undefined : kindOf(range);
}

/** The kind of non-public address `address` is, or undefined for a public one. */
export function nonPublicKind(address: string): string | undefined {
  const text = address.replace(/^\[|\]$/g, '');
  if (!isIP(text.replace(/%.*$/, ''))) return 'unrecognised';
  let ip: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    ip = ipaddr.parse(text);
  } catch {
    return 'unrecognised';
  }
  return ip.kind() === 'ipv6' ? ipv6Kind(ip as ipaddr.IPv6) : ipv4Kind(ip as ipaddr.IPv4);
}

const ALLOW_HINT = 'webhook URLs must reach a public address (WEBHOOK_ALLOW_PRIVATE=true allows others)';

/** Refuses what cannot be a webhook URL: not http(s), credentials in it, no host. */
export function parseWebhookUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new InvalidArgumentError(`url '${redactUrl(raw)}' is not a URL`, { field: 'url' });
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

/** How names are resolved: `dns.lookup` (hosts file included); tests give a resolver of their own. */
export type Resolver = (hostname: string, options: LookupAllOptions, callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

const systemResolver: Resolver = (hostname, options, callback) => dnsLookup(hostname, options, callback);

function lookupAll(host: string, resolver: Resolver): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => resolver(host, { all: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))));
}

/** Checks every address `url`'s host stands for; throws a 422 naming the one refused and why. */
export async function checkWebhookTarget(url: URL, allowPrivate: boolean, resolver: Resolver = systemResolver): Promise<void> {
  if (allowPrivate) return;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = (await lookupAll(host, resolver)).map((a) => a.address);
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
export function guardedLookup(allowPrivate: boolean, resolver: Resolver = systemResolver): LookupFunction {
  return (hostname, options, callback) => {
    resolver(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const list = addresses as LookupAddress[];
      const refused = allowPrivate ? undefined : list.map((a) => [a, nonPublicKind(a.address)] as const).find(([, kind]) => kind);
      if (refused)
        return callback(Object.assign(new Error(refusal(hostname, refused[0].address, refused[1] as string)), { code: 'ERR_WEBHOOK_ADDRESS' }), '', 0);
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
      const first = list[0] as LookupAddress;
      callback(null, first.address, first.family);
    });
  };
}
