import { lookup } from 'node:dns/promises';
import net from 'node:net';
import ipaddr from 'ipaddr.js';

/** A webhook url the gateway will not call, and why (the message names the address). */
export class UrlRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UrlRefusedError';
  }
}

/** An address the url's host resolved to, checked. */
export interface CheckedAddress {
  address: string;
  family: 4 | 6;
}

/**
 * Whether an address is one a webhook may reach: ipaddr.js's `unicast` range, the public
 * internet. Everything else is refused: loopback, private (RFC 1918), link-local (cloud metadata
 * at 169.254.169.254), unique-local, carrier-grade NAT, multicast, unspecified, reserved, and the
 * IPv6 forms that embed an IPv4 address (mapped, 6to4, NAT64), which ipaddr.js reads as the
 * IPv4 address they carry or names apart.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === 'unicast';
}

/**
 * Checks a webhook url and resolves its host: an `http:` or `https:` url without credentials,
 * whose host resolves, and, unless `allowPrivate`, to public addresses only, every one of them
 * (a name with one private address among public ones is refused: which one a connection would
 * get is not ours to decide). Answers the addresses, to connect to the first of them and no other,
 * so that the name cannot resolve to something else between this check and the connection.
 */
export async function resolveWebhookUrl(
  raw: string,
  allowPrivate: boolean,
): Promise<{ url: URL; addresses: CheckedAddress[] }> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UrlRefusedError('is not a URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UrlRefusedError(`must be an http:// or https:// URL, not ${url.protocol}`);
  if (url.username !== '' || url.password !== '')
    throw new UrlRefusedError('must not carry credentials (user:password@): deliveries are signed');
  // WHATWG URLs keep IPv6 literals in brackets.
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: CheckedAddress[];
  if (net.isIP(host) !== 0) {
    addresses = [{ address: host, family: net.isIP(host) as 4 | 6 }];
  } else {
    try {
      const found = await lookup(host, { all: true, verbatim: true });
      addresses = found.map((a) => ({ address: a.address, family: a.family as 4 | 6 }));
    } catch (error) {
      throw new UrlRefusedError(
        `names a host that does not resolve (${(error as { code?: string }).code ?? 'lookup failed'})`,
      );
    }
  }
  if (addresses.length === 0) throw new UrlRefusedError('names a host with no address');
  if (!allowPrivate) {
    const refused = addresses.find((a) => !isPublicAddress(a.address));
    if (refused) {
      throw new UrlRefusedError(
        `resolves to ${refused.address}, a ${ipaddr.isValid(refused.address) ? ipaddr.process(refused.address).range() : 'non-public'} address: webhooks may only call public addresses (WEBHOOK_ALLOW_PRIVATE_URLS=true allows the others)`,
      );
    }
  }
  return { url, addresses };
}
