/** The uri project's global tear-down (jest.config.js): stops the store global-setup.ts started. */
export default async function globalTeardown(): Promise<void> {
  const store = globalThis.gatewayTestStore;
  globalThis.gatewayTestStore = undefined;
  delete process.env.GATEWAY_TEST_STORE_URI;
  await store?.stop();
}
