import type { ApolloServerPlugin } from '@apollo/server';
import type { GraphQLSchema, OperationDefinitionNode } from 'graphql';
import type { AuthenticatedContext } from '../../context/request-context';
import { ErrorCode, WriteOutcomeUnknownError } from '../../errors';
import type { Idempotency, WriteAttempt } from './idempotency';
import { refusedKey } from './idempotency';
import {
  fingerprintOf,
  IDEMPOTENCY_KEY_HEADER,
  readIdempotencyKey,
  REPLAYED_HEADER,
} from './idempotency-key';
import type { Claim } from './idempotency-records';
import type { WriteAnswer } from './write-answer';

/**
 * The field extension of a mutation whose answer must never be kept (it holds a secret), set with
 * `@Extensions({ [KEY_REFUSED]: '<why>' })`: an Idempotency-Key on it is a 400 saying why.
 */
export const KEY_REFUSED = 'idempotencyKeyRefused';

const JSON_TYPE = 'application/json; charset=utf-8';

/** Why the operation's mutations refuse a key, if one does. */
function refusal(schema: GraphQLSchema, operation: OperationDefinitionNode): string | null {
  const fields = schema.getMutationType()?.getFields() ?? {};
  for (const selection of operation.selectionSet.selections) {
    if (selection.kind !== 'Field') continue;
    const why = fields[selection.name.value]?.extensions?.[KEY_REFUSED];
    if (typeof why === 'string') return why;
  }
  return null;
}

/** `mutation createTeam`, as messages name a request. */
function describe(operation: OperationDefinitionNode): string {
  const fields = operation.selectionSet.selections.flatMap((selection) =>
    selection.kind === 'Field' ? [selection.name.value] : [],
  );
  return `mutation ${fields.join(', ') || operation.name?.value || ''}`.trim();
}

/** What a replay of a mutation answer too large to keep says instead. */
function oversize(status: number, bytes: number): WriteAnswer {
  const result = {
    data: null,
    errors: [
      {
        message: `The mutation was carried out (status ${status}); its answer, ${bytes} bytes, was too large to keep for replays`,
      },
    ],
  };
  return { status, contentType: JSON_TYPE, body: Buffer.from(JSON.stringify(result)) };
}

/**
 * Mutations as REST writes (Idempotency.runRest): the Idempotency-Key header of the /graphql POST
 * claims its key once Apollo has resolved the operation, a key with an answer replays it before
 * execution, and the answer (status and result) is recorded before it is sent. A mutation whose
 * database failed under it says its outcome is not known. Queries are not touched.
 */
export function idempotencyPlugin(
  idempotency: Idempotency,
): ApolloServerPlugin<AuthenticatedContext> {
  return {
    async requestDidStart({ contextValue }) {
      const request = idempotency.requestOf(contextValue);
      if (request === undefined) return;
      let attempt: WriteAttempt | null = null;
      let claim: Claim | null = null;
      let replay: WriteAnswer | null = null;
      return {
        async didResolveOperation({ operation, schema, request: graphql }) {
          if (operation?.operation !== 'mutation') return;
          const key = readIdempotencyKey(graphql.http?.headers.get(IDEMPOTENCY_KEY_HEADER));
          attempt = idempotency.begin(request, key !== null);
          if (key === null) return;
          const why = refusal(schema, operation);
          if (why !== null) throw refusedKey(describe(operation), why);
          const started = await idempotency.start({
            caller: contextValue.principal.subject,
            key,
            fingerprint: fingerprintOf({
              method: 'POST',
              url: '/graphql',
              body: [graphql.query, graphql.operationName ?? null, graphql.variables ?? null],
            }),
            request: describe(operation),
          });
          if (started.replay) replay = started.replay;
          else claim = started.claim;
        },
        async responseForOperation({ response }) {
          if (replay !== null) {
            response.http.status = replay.status;
            response.http.headers.set(REPLAYED_HEADER, 'true');
            const singleResult = JSON.parse(replay.body.toString('utf8'));
            return { http: response.http, body: { kind: 'single', singleResult } };
          }
          if (attempt === null) return null;
          if (idempotency.answeredLate(request)) {
            // The time-out answered before the mutation ran, saying nothing was done: so be it.
            if (claim) await idempotency.records.release(claim);
            claim = null;
            attempt.phase = 'settled';
            return {
              http: response.http,
              body: { kind: 'single', singleResult: { errors: [{ message: 'timed out' }] } },
            };
          }
          attempt.phase = 'running';
          return null;
        },
        async willSendResponse({ response }) {
          if (attempt === null || replay !== null || response.body.kind !== 'single') return;
          let result = response.body.singleResult;
          if (attempt.phase === 'running' && result.errors) {
            // The database failed under a mutation that had started: its outcome is not known.
            const { message } = new WriteOutcomeUnknownError({ kind: 'database' }, attempt.keyed);
            result = {
              ...result,
              errors: result.errors.map((error) =>
                error.extensions?.code === ErrorCode.SERVICE_UNAVAILABLE
                  ? { ...error, message }
                  : error,
              ),
            };
            response.body = { kind: 'single', singleResult: result };
          }
          attempt.phase = 'settled';
          if (claim === null) return;
          const answer = {
            status: response.http.status ?? 200,
            contentType: JSON_TYPE,
            body: Buffer.from(JSON.stringify(result)),
          };
          await idempotency.settle(claim, answer, oversize);
        },
      };
    },
  };
}
