import { timingSafeEqual } from 'node:crypto';
import { StoreError } from '../errors';
import { hmacSha256, sha256, type ScramCredential } from './scram-credential';

/** mongod's answer to every failed authentication: what went wrong is not said. */
export const authenticationFailed = (): StoreError =>
  new StoreError('AuthenticationFailed', 'Authentication failed.');

/** The parts of a client-first-message (RFC 5802 §7) the rest of the exchange needs. */
export interface ClientFirst {
  /** gs2-header as sent ("n,,"): the client-final's `c=` must be its base64. */
  gs2Header: string;
  /** client-first-message-bare: the first part of AuthMessage. */
  bare: string;
  /** The user name, `=2C`/`=3D` decoded. */
  user: string;
  nonce: string;
}

// value-char of RFC 5802: any UTF-8 character but NUL and ','.
const NONCE = /^[\x21-\x2b\x2d-\x7e]+$/;

/**
 * Parses a client-first-message. Only "n" (no channel binding) and "y" (client could, server does
 * not) are accepted; an authzid must name the user itself; a mandatory extension ("m=") fails.
 */
export function parseClientFirst(message: Buffer): ClientFirst {
  const text = decodeUtf8(message);
  const header = /^([ny]),(?:a=([^,]*))?,/.exec(text);
  if (!header) throw authenticationFailed();
  const gs2Header = header[0];
  const bare = text.slice(gs2Header.length);
  const [userPart, noncePart] = bare.split(',');
  if (!userPart?.startsWith('n=') || !noncePart?.startsWith('r=')) throw authenticationFailed();
  const user = decodeSaslName(userPart.slice(2));
  const nonce = noncePart.slice(2);
  if (user === null || user === '' || !NONCE.test(nonce)) throw authenticationFailed();
  if (header[2] !== undefined && header[2] !== '' && decodeSaslName(header[2]) !== user)
    throw authenticationFailed();
  return { gs2Header, bare, user, nonce };
}

/**
 * The server side of one SCRAM-SHA-256 exchange after the client-first-message: the server-first
 * message, then the check of the client's proof, which yields the server-final message. The
 * credential may be a decoy (unknown user): it fails at the proof like a wrong password does.
 */
export class ScramExchange {
  readonly serverFirst: string;
  private readonly nonce: string;

  constructor(
    private readonly first: ClientFirst,
    private readonly credential: ScramCredential,
    serverNonce: string,
  ) {
    this.nonce = first.nonce + serverNonce;
    this.serverFirst = `r=${this.nonce},s=${credential.salt.toString('base64')},i=${credential.iterations}`;
  }

  /** Checks the client-final-message; returns the server-final-message ("v=<ServerSignature>"). */
  verify(message: Buffer): string {
    const text = decodeUtf8(message);
    const proofAt = text.lastIndexOf(',p=');
    if (proofAt < 0) throw authenticationFailed();
    const withoutProof = text.slice(0, proofAt);
    const [binding, nonce] = withoutProof.split(',');
    if (
      binding !== `c=${Buffer.from(this.first.gs2Header).toString('base64')}` ||
      nonce !== `r=${this.nonce}`
    ) {
      throw authenticationFailed();
    }
    const proof = Buffer.from(text.slice(proofAt + 3), 'base64');
    const { storedKey, serverKey } = this.credential;
    if (proof.length !== storedKey.length) throw authenticationFailed();
    const authMessage = `${this.first.bare},${this.serverFirst},${withoutProof}`;
    const signature = hmacSha256(storedKey, authMessage);
    const clientKey = Buffer.alloc(proof.length);
    for (let i = 0; i < proof.length; i++) clientKey[i] = proof[i] ^ signature[i];
    if (!timingSafeEqual(sha256(clientKey), storedKey)) throw authenticationFailed();
    return `v=${hmacSha256(serverKey, authMessage).toString('base64')}`;
  }
}

/** saslname of RFC 5802: ',' and '=' travel as "=2C" and "=3D"; any other '=' is malformed. */
function decodeSaslName(text: string): string | null {
  if (/=(?!2C|3D)/.test(text)) return null;
  return text.replace(/=2C/g, ',').replace(/=3D/g, '=');
}

function decodeUtf8(bytes: Buffer): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw authenticationFailed();
  }
}
