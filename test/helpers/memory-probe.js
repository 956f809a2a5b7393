'use strict';
// Internal test helper, preloaded (`node --expose-gc -r`) into a gateway process a test measures
// (test/graphql/graphql-guard-memory.test.ts): on the message 'memory' from its parent it collects
// garbage and answers process.memoryUsage(), so that the figure is what the process keeps rather
// than garbage V8 has not collected yet.
process.on('message', (message) => {
  if (message !== 'memory') return;
  global.gc();
  global.gc();
  process.send(process.memoryUsage());
});
// The channel must not keep the gateway alive by itself.
process.channel.unref();
