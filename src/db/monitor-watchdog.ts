import type { MongoClient } from 'mongodb';

export interface MonitorWatchdogOptions {
  /** The client's heartbeatFrequencyMS. */
  heartbeatFrequencyMS: number;
  /** The client's connectTimeoutMS. */
  connectTimeoutMS: number;
  /** Told each time the client is restarted, with why. */
  onRestart?: (reason: string) => void;
}

export interface MonitorWatchdog {
  stop(): void;
}

/**
 * Restarts a MongoClient whose server monitor stopped reporting.
 *
 * The driver bounds a heartbeat by connectTimeoutMS + heartbeatFrequencyMS, but a heartbeat whose
 * connection is closed by the database at the moment the hello is written waits for ever: the
 * write to the already destroyed socket returns false and the driver waits for a `drain` that never
 * comes (mongodb 7.8). Its server then stays Unknown, every operation fails server selection, and
 * the gateway would answer 503 until restarted, even once the database is back. It happens when
 * the database goes away under load (a MongoDB restart, a failover, the embedded store stopped).
 *
 * A heartbeat still open well after the driver's own bound is stuck. Closing the client ends its
 * monitors and pools; connecting again builds new ones, and mongoose keeps using the same client.
 * While the database is still away the connect fails, and it is tried again a heartbeat later:
 * meanwhile operations fail as unavailable (503), as they would with a working monitor.
 */
export function watchMonitor(
  client: MongoClient,
  options: MonitorWatchdogOptions,
): MonitorWatchdog {
  const limit = options.connectTimeoutMS + 2 * options.heartbeatFrequencyMS;
  const started = new Map<string, number>();
  let restarting = false;
  let stopped = false;

  const onStarted = (event: { connectionId: string }) =>
    started.set(event.connectionId, Date.now());
  const onEnded = (event: { connectionId: string }) => started.delete(event.connectionId);
  client.on('serverHeartbeatStarted', onStarted);
  client.on('serverHeartbeatSucceeded', onEnded);
  client.on('serverHeartbeatFailed', onEnded);

  const restart = async (reason: string) => {
    restarting = true;
    options.onRestart?.(reason);
    try {
      await client.close().catch(() => undefined);
      while (!stopped) {
        started.clear();
        try {
          await client.connect();
          return;
        } catch {
          await new Promise((resolve) => setTimeout(resolve, options.heartbeatFrequencyMS).unref());
        }
      }
    } finally {
      restarting = false;
    }
  };

  const timer = setInterval(() => {
    if (restarting || stopped) return;
    const now = Date.now();
    for (const [address, since] of started) {
      if (now - since > limit) {
        void restart(`the driver's heartbeat to ${address} has not ended after ${now - since} ms`);
        return;
      }
    }
  }, options.heartbeatFrequencyMS);
  timer.unref();

  return {
    stop() {
      stopped = true;
      clearInterval(timer);
      client.off('serverHeartbeatStarted', onStarted);
      client.off('serverHeartbeatSucceeded', onEnded);
      client.off('serverHeartbeatFailed', onEnded);
    },
  };
}
