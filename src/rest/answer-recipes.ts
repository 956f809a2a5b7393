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
