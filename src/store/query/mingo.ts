/**
 * mingo's classes without the defaults of its root entry: they run with exactly the operators of
 * the context in their options (always mingoOptions(): the store's context).
 */
export { Query } from 'mingo/query';
export { Aggregator } from 'mingo/aggregator';
export { update } from 'mingo/updater';
