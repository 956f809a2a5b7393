// Internal test helper: a webhook receiver on loopback that records every delivery, checks its
// signature with the `standardwebhooks` package (the specification's implementation, as a
// receiver would), and answers as the test tells it.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedDelivery {
  id: string;
  timestamp: string;
  signature: string;
  /** When it arrived (ms). */
  at: number;
  body: { type: string; timestamp: string; data: Record<string, any> };
  raw: string;
  /** The status answered. */
  answered: number;
  /** Whether the signature verified with the secret the test gave (null: no secret given yet). */
  verified: boolean | null;
}

export interface Receiver {
  url: string;
  received: ReceivedDelivery[];
  /** The secret(s) deliveries are verified with (any one verifying counts). */
  secrets: string[];
  /** Decides the status of each delivery (default 200); `hold` keeps the answer back until released. */
  answer: (delivery: Omit<ReceivedDelivery, 'answered'>) => number | 'hold';
  /** Answers every held delivery with `status`. */
  release(status?: number): void;
  /** How many deliveries are held back now. */
  holding(): number;
  /** Resolves once `predicate` holds for the deliveries received (polls every 20 ms). */
  waitFor(predicate: (received: ReceivedDelivery[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const held: Array<(status: number) => void> = [];
  const receiver: Receiver = {
    url: '',
    received: [],
    secrets: [],
    answer: () => 200,
    release(status = 200) {
      for (const done of held.splice(0)) done(status);
    },
    holding: () => held.length,
    async waitFor(predicate, timeoutMs = 15_000) {
      const until = Date.now() + timeoutMs;
      while (!predicate(receiver.received)) {
        if (Date.now() > until)
          throw new Error(
            `receiver: condition not met within ${timeoutMs} ms; received ${receiver.received.length}: ${receiver.received
              .map((r) => r.body.type)
              .join(', ')}`,
          );
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        receiver.release(503);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const headers = {
        'webhook-id': String(request.headers['webhook-id'] ?? ''),
        'webhook-timestamp': String(request.headers['webhook-timestamp'] ?? ''),
        'webhook-signature': String(request.headers['webhook-signature'] ?? ''),
      };
      let verified: boolean | null = null;
      if (receiver.secrets.length > 0) {
        verified = receiver.secrets.some((secret) => {
          try {
            new Webhook(secret).verify(raw, headers);
            return true;
          } catch {
            return false;
          }
        });
      }
      const delivery = {
        id: headers['webhook-id'],
        timestamp: headers['webhook-timestamp'],
        signature: headers['webhook-signature'],
        at: Date.now(),
        body: JSON.parse(raw),
        raw,
        verified,
      };
      const decided = receiver.answer(delivery);
      const send = (status: number) => {
        receiver.received.push({ ...delivery, answered: status });
        // A held request whose sender died has no one to answer.
        if (!response.destroyed)
          response.writeHead(status, { 'content-type': 'text/plain' }).end(String(status));
      };
      if (decided === 'hold') held.push(send);
      else send(decided);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return receiver;
}
