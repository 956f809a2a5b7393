/**
 * Internal (benchmark): writes settings at a steady rate while a case is loaded, in the bench
 * process: `POST /settings/currencies` as the admin, alternating two currencies, so every write
 * changes the stored data. Writes are sent on a fixed schedule, one at a time; one that is still
 * under way when the next is due delays it (and the tally shows the rate reached).
 */

export interface WriteTally {
  sent: number;
  ok: number;
  failed: number;
  /** The first failure's status and text, if any. */
  firstFailure: string | null;
  seconds: number;
}

export interface SettingsWriter {
  /** Stops after the write under way and returns what was written. */
  stop(): Promise<WriteTally>;
}

const CURRENCIES = ['EUR', 'USD'];

export function startSettingsWriter(
  baseUrl: string,
  adminToken: string,
  perSecond: number,
): SettingsWriter {
  const tally: WriteTally = { sent: 0, ok: 0, failed: 0, firstFailure: null, seconds: 0 };
  const started = performance.now();
  const interval = 1000 / perSecond;
  let stopping = false;
  let wake: (() => void) | null = null;
  let timer: NodeJS.Timeout | null = null;
  const sleep = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      wake = resolve;
      timer = setTimeout(resolve, ms);
    });

  const loop = async (): Promise<void> => {
    while (!stopping) {
      const currency = CURRENCIES[tally.sent % CURRENCIES.length];
      tally.sent += 1;
      try {
        const response = await fetch(`${baseUrl}/settings/currencies`, {
          method: 'POST',
          headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
          body: JSON.stringify({ currency }),
        });
        const text = await response.text();
        if (response.ok) tally.ok += 1;
        else {
          tally.failed += 1;
          tally.firstFailure ??= `${response.status} ${text.slice(0, 200)}`;
        }
      } catch (error) {
        tally.failed += 1;
        tally.firstFailure ??= (error as Error).message;
      }
      const due = started + tally.sent * interval;
      await sleep(Math.max(0, due - performance.now()));
    }
  };
  const running = loop();
  return {
    async stop() {
      stopping = true;
      if (timer) clearTimeout(timer);
      (wake as (() => void) | null)?.();
      await running;
      tally.seconds = (performance.now() - started) / 1000;
      return { ...tally };
    },
  };
}
