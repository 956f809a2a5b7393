// A setup file of the uri project (jest.config.js), run in each of its test files before the file
// itself: the test helpers connect to the store process its global set-up started
// (test/helpers/database-mode.ts). Each test file has its own process.env, so the embedded
// project's files, which share the workers, are not affected.
process.env.GATEWAY_TEST_DATABASE = 'uri';
