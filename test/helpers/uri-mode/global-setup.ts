import embeddedGlobalSetup from '../global-setup';
import { startStoreProcess, type StoreProcess } from '../store-process';

declare global {
  // Shared with global-teardown.ts: jest runs both in its main process.
  var gatewayTestStore: StoreProcess | undefined;
}

/**
 * The uri project's global set-up (jest.config.js): what the embedded project's does (the
 * explorer's assets), then ONE store process for the whole run, as `npm run db` runs it; its URI
 * goes to the test workers as GATEWAY_TEST_STORE_URI (they inherit this process's environment), and
 * test/helpers/gateway.ts gives each gateway a database of its own on it.
 */
export default async function globalSetup(): Promise<void> {
  await embeddedGlobalSetup();
  const store = await startStoreProcess();
  globalThis.gatewayTestStore = store;
  process.env.GATEWAY_TEST_STORE_URI = store.uri;
}
