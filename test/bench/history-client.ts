/**
 * Internal (benchmark): `bench:history`'s HTTP client of the gateway, with the admin token: the
 * account's settings and targets, the day's import, and the read sweeps timed at both ends.
 */
import http from 'node:http';

export interface Answer {
  status: number;
  body: string;
}

export class HistoryClient {
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

  constructor(
    private readonly port: number,
    private readonly adminToken: string,
  ) {}

  /** One request; no time-out (a full import of 100 000 deals takes minutes). */
  request(method: string, pathAndQuery: string, body?: string): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const headers: http.OutgoingHttpHeaders = { authorization: `Bearer ${this.adminToken}` };
      if (body !== undefined) {
        headers['content-type'] = 'application/json';
        headers['content-length'] = Buffer.byteLength(body);
      }
      const req = http.request(
        {
          host: '127.0.0.1',
          port: this.port,
          method,
          path: pathAndQuery,
          headers,
          agent: this.agent,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
          );
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  /** A request that must answer 200; answers the parsed body. */
  async ok<T>(method: string, pathAndQuery: string, body?: unknown): Promise<T> {
    const answer = await this.request(
      method,
      pathAndQuery,
      body === undefined ? undefined : JSON.stringify(body),
    );
    if (answer.status !== 200)
      throw new Error(
        `${method} ${pathAndQuery} answered ${answer.status}: ${answer.body.slice(0, 500)}`,
      );
    return JSON.parse(answer.body) as T;
  }

  /** POST /crm/imports with a body already serialised; answers the wall time in seconds. */
  async importBody(body: string): Promise<{ seconds: number; deals: number; snapshotId: string }> {
    const started = performance.now();
    const answer = await this.request('POST', '/crm/imports', body);
    const seconds = (performance.now() - started) / 1000;
    if (answer.status !== 200)
      throw new Error(`POST /crm/imports answered ${answer.status}: ${answer.body.slice(0, 1000)}`);
    const parsed = JSON.parse(answer.body) as { snapshot_id: string; counts: { deals: number } };
    return { seconds, deals: parsed.counts.deals, snapshotId: parsed.snapshot_id };
  }

  /** Currency and period, before the first import. */
  async setUpAccount(period: string): Promise<void> {
    await this.ok('POST', '/settings/currencies', { currency: 'EUR' });
    await this.ok('POST', '/settings/periods', { period });
  }

  /** A target per period for every member, for each year given. */
  async setTargets(years: number[], periodsPerYear: number): Promise<number> {
    const members: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { members: { member_id: string }[]; next_cursor: string | null } = await this.ok(
        'GET',
        `/teams/members?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      members.push(...page.members.map((m) => m.member_id));
      cursor = page.next_cursor;
    } while (cursor);
    for (const [i, memberId] of members.entries()) {
      for (const year of years) {
        const targets = Array.from(
          { length: periodsPerYear },
          (_, p) => 20_000 + ((i * 7 + p) % 10) * 2_500,
        );
        await this.ok('POST', `/teams/members/${encodeURIComponent(memberId)}/targets`, {
          targets,
          year,
        });
      }
    }
    return members.length;
  }

  /** Every pipeline id of the latest snapshot (complete pipelines and sub-pipelines). */
  async pipelineIds(): Promise<{ all: string[]; complete: string[] }> {
    const latest = await this.ok<{
      pipeline_definitions: { pipelines: { id: string; is_sub_pipeline: boolean }[] }[];
    }>('GET', '/pipelines');
    const pipelines = latest.pipeline_definitions.flatMap((d) => d.pipelines);
    return {
      all: pipelines.map((p) => p.id),
      complete: pipelines.filter((p) => !p.is_sub_pipeline).map((p) => p.id),
    };
  }
}
