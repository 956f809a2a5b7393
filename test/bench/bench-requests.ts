/**
 * Internal (benchmark): the request lists of the gateway cases, and a check that every request
 * of a list answers 200 before it is loaded.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { MemberToken } from './gateway-server';
import type { WrkRequest } from './wrk/run-wrk';

/** The explorer's default query, as the GraphiQL page sends it. */
// In the source tree, whether this file runs from source or from dist/test/bench.
export const DASHBOARD_QUERY = readFileSync(
  ['../..', '../../..']
    .map((up) => path.resolve(__dirname, up, 'src/graphql/operations/explorer-overview.graphql'))
    .find((file) => existsSync(file))!,
  'utf8',
);

/** Metric filters of the mix: none (all metrics) and named sets, none derived from targets (which some callers may not read: a 403). */
export const METRIC_FILTERS: Array<string | null> = [
  null,
  'win_rate,average_deal_size',
  'pipeline_value',
  'open_opportunities,average_sales_cycle',
];

export const CALLERS = 12;

const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

export function dashboardRequest(token: string | null): WrkRequest {
  return {
    method: 'POST',
    path: '/graphql',
    headers: { ...(token ? bearer(token) : {}), 'content-type': 'application/json' },
    body: JSON.stringify({ query: DASHBOARD_QUERY, operationName: 'ExplorerOverview' }),
  };
}

/** `GET /pipelines` of one caller: the hot case. */
export function hotList(tokens: MemberToken[]): WrkRequest[] {
  return [{ method: 'GET', path: '/pipelines', headers: bearer(tokens[0]!.token) }];
}

/** The metrics of every pipeline × 12 callers × every filter, pipelines outermost. */
export function mixList(tokens: MemberToken[], pipelineIds: string[]): WrkRequest[] {
  const list: WrkRequest[] = [];
  for (const id of pipelineIds) {
    for (const caller of tokens.slice(0, CALLERS)) {
      for (const filter of METRIC_FILTERS) {
        const query = `pipeline_id=${encodeURIComponent(id)}${filter ? `&metrics=${filter}` : ''}`;
        list.push({
          method: 'GET',
          path: `/pipelines/metrics?${query}`,
          headers: bearer(caller.token),
        });
      }
    }
  }
  return list;
}

/** The dashboard as each of 12 callers. */
export function dashboardList(tokens: MemberToken[]): WrkRequest[] {
  return tokens.slice(0, CALLERS).map((caller) => dashboardRequest(caller.token));
}

export async function send(
  base: string,
  request: WrkRequest,
): Promise<{ status: number; text: string }> {
  const response = await fetch(`${base}${request.path}`, {
    method: request.method,
    headers: request.headers,
    body: request.body,
  });
  return { status: response.status, text: await response.text() };
}

/** Sends every request once; throws naming the first that does not answer 200 without `errors`. */
export async function checkAll(base: string, name: string, list: WrkRequest[]): Promise<void> {
  for (const request of list) {
    const { status, text } = await send(base, request);
    if (status !== 200 || (JSON.parse(text) as { errors?: unknown }).errors !== undefined) {
      throw new Error(
        `${name}: ${request.method} ${request.path} answered ${status}: ${text.slice(0, 300)}`,
      );
    }
  }
}
