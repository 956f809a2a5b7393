import { SCRAM_SHA_256 } from '../auth/scram-credential';
import type { CursorRegistry } from '../cursors';
import { StoreError } from '../errors';
import { describeType } from '../query/filter';
import { numberArgument } from './arguments';
import type { TtlMonitor } from '../storage/ttl-monitor';

/** One server parameter: its value, and how `setParameter` changes it (absent: startup only). */
interface Parameter {
  get(): unknown;
  set?(value: unknown): void;
}

/**
 * The server parameters `getParameter` reports and `setParameter` changes, as mongod's
 * ServerParameterSet. Only parameters the store has are listed; a settable one takes effect
 * (cursorTimeoutMillis closes idle cursors, ttlMonitorSleepSecs restarts the TTL monitor's
 * period), except the blocking-sort memory limit, which the store keeps but does not enforce
 * (DIFFERENCES.md).
 */
export class ServerParameters {
  private sortMemoryBytes = 104_857_600;
  private readonly table: Record<string, Parameter>;

  /** `ttlMonitor`: the server's TTL monitor, whose period `ttlMonitorSleepSecs` is (none: no such parameter). */
  constructor(cursors: CursorRegistry, ttlMonitor?: TtlMonitor) {
    this.table = {
      // What the store speaks, whether or not this server asks for credentials (as mongod reports it).
      authenticationMechanisms: { get: () => [SCRAM_SHA_256] },
      cursorTimeoutMillis: {
        get: () => cursors.timeoutMs,
        set: (v) => {
          cursors.timeoutMs = integerValue('cursorTimeoutMillis', v);
        },
      },
      featureCompatibilityVersion: { get: () => ({ version: '7.0' }) },
      internalQueryMaxBlockingSortMemoryUsageBytes: {
        get: () => this.sortMemoryBytes,
        set: (v) => {
          this.sortMemoryBytes = integerValue('internalQueryMaxBlockingSortMemoryUsageBytes', v);
        },
      },
      maxBSONDepth: { get: () => 100 },
    };
    if (ttlMonitor) {
      this.table.ttlMonitorSleepSecs = {
        get: () => ttlMonitor.sleepSecs,
        set: (v) => {
          const secs = integerValue('ttlMonitorSleepSecs', v);
          if (secs <= 0)
            throw new StoreError(
              'BadValue',
              `Invalid value for parameter ttlMonitorSleepSecs: ${secs} is not greater than 0`,
            );
          ttlMonitor.sleepSecs = secs;
        },
      };
    }
  }

  names(): string[] {
    return Object.keys(this.table);
  }

  has(name: string): boolean {
    return Object.hasOwn(this.table, name);
  }

  get(name: string): unknown {
    return this.table[name].get();
  }

  settableAtRuntime(name: string): boolean {
    return this.table[name].set !== undefined;
  }

  /** Sets a parameter; throws (changing nothing) when the value is not one it takes. */
  set(name: string, value: unknown): void {
    this.table[name].set!(value);
  }
}

// mongod's integer parameters take any number BSON type and keep its integral part.
function integerValue(name: string, v: unknown): number {
  const n = numberArgument(v) ?? NaN;
  if (!Number.isFinite(n) || n < 0) {
    throw new StoreError(
      'BadValue',
      `Invalid value for parameter ${name}: ${describeType(v)} ${String(v)}`,
    );
  }
  return Math.trunc(n);
}
