import type { DataAccess } from '../data/data-access';
import type { RequestData } from '../data/request-data';

/** What a request's loaders are made from: the app's data access and the request's data. */
export interface LoaderSource {
  readonly access: DataAccess;
  readonly data: RequestData;
}

/** Loader factories by name. */
export type LoaderFactories = Record<string, (source: LoaderSource) => unknown>;

/** The loaders the factories make, by name. */
export type LoadersOf<F extends LoaderFactories> = { readonly [K in keyof F]: ReturnType<F[K]> };

/**
 * A class whose instances (one per request) make each loader on first use, once: a request pays
 * for the loaders it reads through, not for all of them (an uncached metrics read uses four).
 * Getters sit on the prototype, so every instance has the same shape.
 */
export function lazyLoaderClass<F extends LoaderFactories>(
  factories: F,
): new (access: DataAccess, data: RequestData) => LoadersOf<F> {
  class LazyLoaders implements LoaderSource {
    /** The loaders made so far, by name. */
    readonly made: Record<string, unknown> = {};

    constructor(
      readonly access: DataAccess,
      readonly data: RequestData,
    ) {}
  }
  for (const [name, make] of Object.entries(factories)) {
    Object.defineProperty(LazyLoaders.prototype, name, {
      enumerable: true,
      get(this: LazyLoaders) {
        return (this.made[name] ??= make(this));
      },
    });
  }
  return LazyLoaders as unknown as new (access: DataAccess, data: RequestData) => LoadersOf<F>;
}
