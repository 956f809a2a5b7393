import { hostname } from 'node:os';
import type { Document } from 'bson';
import { StoreError } from '../errors';
import { planAccess } from '../query/access';
import { operationCollation } from '../query/collation';
import { runPipeline } from '../query/aggregate';
import { describeType } from '../query/filter';
import { accessStage, findStages, parsedQuery } from '../query/explain-plan';
import { runFind, type FindRun, type FindSpec } from '../query/find-documents';
import { isPlainObject } from '../storage/document-paths';
import { aggregateParts, leadingMatch } from './aggregate-parts';
import { collectionArg } from './arguments';
import { SERVER_VERSION } from './build-info';
import type { Command, CommandContext } from './command';
import { countSpec } from './count';
import { findSpec } from './find';

const VERBOSITIES = ['queryPlanner', 'executionStats', 'allPlansExecution'] as const;
type Verbosity = (typeof VERBOSITIES)[number];

/**
 * `explain` of `find`, `count` and `aggregate` (also reached by `aggregate` with `explain: true`):
 * the plan the store really runs (see query/explain-plan.ts), and with executionStats verbosity
 * the counts from running it. Other commands are not explained by the store.
 */
export const explainCommand: Command = {
  name: 'explain',
  run(ctx) {
    const inner = ctx.body.explain;
    if (!isPlainObject(inner)) {
      throw new StoreError(
        'TypeMismatch',
        `BSON field 'explain.explain' is the wrong type '${describeType(inner)}', expected type 'object'`,
      );
    }
    const verbosity = parseVerbosity(ctx.body.verbosity);
    const innerCtx: CommandContext = { ...ctx, body: inner };
    const command = Object.keys(inner)[0] ?? '';
    const common = {
      command: { ...inner, $db: ctx.db },
      serverInfo: { host: hostname(), version: SERVER_VERSION, gitVersion: 'embedded' },
    };
    switch (command) {
      case 'find': {
        const name = collectionArg(innerCtx, 'find');
        const spec = findSpec(inner, ctx.catalog.collection(ctx.db, name));
        const explained = explainFind(innerCtx, name, spec, verbosity, (access) =>
          findStages(access, spec as FindStagesSpec),
        );
        return { ...explained, ...common };
      }
      case 'count': {
        const name = collectionArg(innerCtx, 'count');
        const spec = countSpec(inner, ctx.catalog.collection(ctx.db, name));
        const fast = Object.keys(spec.filter as Document).length === 0 && spec.hint === undefined;
        const explained = explainFind(innerCtx, name, spec, verbosity, (access) =>
          fast ? { stage: 'RECORD_STORE_FAST_COUNT' } : { stage: 'COUNT', inputStage: access },
        );
        return { ...explained, ...common };
      }
      case 'aggregate':
        return { ...explainAggregate(innerCtx, verbosity), ...common };
      default:
        throw new StoreError(
          'IllegalOperation',
          `explain of '${command}' is not supported by the embedded store (find, count and aggregate are)`,
        );
    }
  },
};

type FindStagesSpec = Parameters<typeof findStages>[1];

function parseVerbosity(v: unknown): Verbosity {
  if (v === undefined || v === null) return 'allPlansExecution';
  if (typeof v !== 'string' || !(VERBOSITIES as readonly string[]).includes(v)) {
    throw new StoreError(
      'BadValue',
      `verbosity string must be one of {'queryPlanner', 'executionStats', 'allPlansExecution'}`,
    );
  }
  return v as Verbosity;
}

function explainFind(
  ctx: CommandContext,
  name: string,
  spec: FindSpec,
  verbosity: Verbosity,
  shape: (access: Document) => Document,
): Document {
  const coll = ctx.catalog.collection(ctx.db, name);
  const filter = spec.filter as Document;
  const started = Date.now();
  const run = runFind(coll, spec, true);
  const winningPlan = shape(accessStage(run.access, filter));
  return {
    explainVersion: '1',
    queryPlanner: queryPlanner(`${ctx.db}.${name}`, filter, winningPlan),
    ...(verbosity === 'queryPlanner'
      ? {}
      : {
          executionStats: executionStats(
            run,
            run.docs.length,
            Date.now() - started,
            winningPlan,
            verbosity,
          ),
        }),
  };
}

/**
 * A pipeline that is a leading `$match` alone is explained like a find (mongod pushes it into the
 * query); otherwise as `$cursor` (the read) followed by the remaining stages as given.
 */
function explainAggregate(ctx: CommandContext, verbosity: Verbosity): Document {
  const { name, readStages, writeStage } = aggregateParts(ctx);
  const coll = ctx.catalog.collection(ctx.db, name);
  const filter = leadingMatch(readStages);
  const rest = readStages.slice(
    isPlainObject(readStages[0]) && isPlainObject(readStages[0].$match) ? 1 : 0,
  );
  const started = Date.now();
  const collation = operationCollation(ctx.body.collation, coll?.options);
  const access = planAccess(coll, filter, {
    hint: ctx.body.hint,
    idHack: true,
    collated: collation !== null,
  });
  const run: FindRun = { docs: [], access, docsExamined: 0 };
  let nReturned = 0;
  if (verbosity !== 'queryPlanner') {
    const docs = [...access.docs];
    run.docsExamined = docs.length;
    const resolve = (other: string): Document[] => [
      ...(ctx.catalog.collection(ctx.db, other)?.docs.values() ?? []),
    ];
    nReturned = runPipeline(docs, readStages, resolve, collation).length;
  }
  const winningPlan = accessStage(access, filter);
  const planner = queryPlanner(`${ctx.db}.${name}`, filter, winningPlan);
  const stats =
    verbosity === 'queryPlanner'
      ? {}
      : {
          executionStats: executionStats(
            run,
            nReturned,
            Date.now() - started,
            winningPlan,
            verbosity,
          ),
        };
  const stages = [...rest, ...(writeStage ? [writeStage] : [])];
  if (stages.length === 0) return { explainVersion: '1', queryPlanner: planner, ...stats };
  return {
    explainVersion: '1',
    stages: [{ $cursor: { queryPlanner: planner, ...stats } }, ...stages],
  };
}

function queryPlanner(namespace: string, filter: Document, winningPlan: Document): Document {
  return {
    namespace,
    indexFilterSet: false,
    parsedQuery: parsedQuery(filter),
    maxIndexedOrSolutionsReached: false,
    maxIndexedAndSolutionsReached: false,
    maxScansToExplodeReached: false,
    winningPlan,
    rejectedPlans: [],
  };
}

function executionStats(
  run: FindRun,
  nReturned: number,
  millis: number,
  winningPlan: Document,
  verbosity: Verbosity,
): Document {
  const keysExamined =
    run.access.stage === 'IXSCAN' || run.access.stage === 'IDHACK' ? run.docsExamined : 0;
  return {
    executionSuccess: true,
    nReturned,
    executionTimeMillis: millis,
    totalKeysExamined: keysExamined,
    totalDocsExamined: run.docsExamined,
    executionStages: { ...winningPlan, nReturned },
    ...(verbosity === 'allPlansExecution' ? { allPlansExecution: [] } : {}),
  };
}
