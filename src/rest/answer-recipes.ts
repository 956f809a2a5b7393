import type { RequestContext } from '../context/request-context';
import type { AnswerCache } from '../data/answer-cache';
import { trackReads } from '../data/read-tracking';
import type { KeptRestAnswer } from './kept-answer';
import type { RouteDefinition } from './route-definition';

/**
 * How a cacheable GET's answer is made, learnt from its URL's first answer: the route, the input
 * the URL builds (checked valid; the same URL always builds the same input) and the route's
 * compiled response serialiser. With them an answer is computed again after a write without
 * coercing, validating or routing again (register-routes.ts, kept-answer-lane.ts).
 */
export interface AnswerRecipe {
  route: RouteDefinition;
  /** Shared between requests: handlers treat inputs as read-only. */
  input: object | undefined;
  serialize(result: Record<string, unknown>): string;
}

/** Recipes kept at most; past the limit the map starts over (URLs may carry any query). */
const MAX_RECIPES = 20_000;

/** The app's recipes by raw URL (a GET URL names one route). */
export class AnswerRecipes {
  private readonly byUrl = new Map<string, AnswerRecipe>();

  get(url: string): AnswerRecipe | undefined {
    return this.byUrl.get(url);
  }

  learn(url: string, recipe: AnswerRecipe): void {
    if (this.byUrl.size >= MAX_RECIPES) this.byUrl.clear();
    this.byUrl.set(url, recipe);
  }
}

/**
 * A recipe's answer computed from memory (its route's `handleNow`, what it reads noted on the
 * request) and kept under `key` as any 200 is; undefined when the route cannot answer without
 * waiting, or answers another status: the full way answers then.
 */
export function answerNow(
  recipe: AnswerRecipe,
  ctx: RequestContext,
  key: string,
  answers: AnswerCache<KeptRestAnswer>,
): KeptRestAnswer | undefined {
  const { route } = recipe;
  const result =
    route.handleNow && trackReads(ctx.data, () => route.handleNow!(ctx, recipe.input as object));
  if (result === undefined || (typeof result.statusCode === 'number' && result.statusCode !== 200))
    return undefined;
  const answer = { status: 200, body: Buffer.from(recipe.serialize(result)), route: route.path };
  answers.keep(key, answer, key.length + answer.body.length, ctx.data);
  return answer;
}
