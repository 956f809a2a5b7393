import { randomBytes } from 'node:crypto';
import { ConnectionAuth } from './connection-auth';
import { AUTH_DB, DEFAULT_ITERATIONS, hmacSha256, type ScramCredential } from './scram-credential';

/**
 * The server's side of authentication: the one user it knows (or none), and a connection's
 * auth state for each new connection. With a credential, every connection must authenticate
 * before running anything but the handshake; without one, nothing is asked and any attempt to
 * authenticate fails, as on a mongod without users.
 */
export class Authenticator {
  /** Keys the decoy credentials, so probing a user name always meets the same salt. */
  private readonly decoyKey = randomBytes(32);

  constructor(private readonly credential: ScramCredential | null) {}

  /** True when connections must authenticate. */
  get required(): boolean {
    return this.credential !== null;
  }

  forConnection(): ConnectionAuth {
    return new ConnectionAuth(this);
  }

  /**
   * The credential to run an exchange against. For anything but the known user in `admin`, a
   * decoy that looks the same (a stable salt, the same iteration count) and fails at the proof,
   * so the answers do not tell which user names exist (RFC 5802 §9).
   */
  lookup(db: string, user: string): { credential: ScramCredential; genuine: boolean } {
    if (this.credential && db === AUTH_DB && user === this.credential.user)
      return { credential: this.credential, genuine: true };
    const decoy: ScramCredential = {
      user,
      iterations: this.credential?.iterations ?? DEFAULT_ITERATIONS,
      salt: hmacSha256(this.decoyKey, `${db}.${user}`).subarray(0, 28),
      storedKey: randomBytes(32),
      serverKey: randomBytes(32),
    };
    return { credential: decoy, genuine: false };
  }
}
