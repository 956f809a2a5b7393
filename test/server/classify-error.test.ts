import vm from 'node:vm';
import { isDatabaseUnavailable } from '../../src/server/classify-error';

describe('isDatabaseUnavailable', () => {
  it('knows the driver errors of an unreachable database, wrapped or not', () => {
    const network = Object.assign(new Error('connection closed'), { name: 'MongoNetworkError' });
    expect(isDatabaseUnavailable(network)).toBe(true);
    expect(isDatabaseUnavailable(new Error('query failed', { cause: network }))).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error('E11000'), { code: 11000 }))).toBe(false);
  });

  it("knows a socket the database closed under a write, even as an error from another realm (Node's own socket code)", () => {
    const foreign = vm.runInNewContext(
      'Object.assign(new Error("This socket has been ended by the other party"), { code: "EPIPE" })',
    ) as unknown;
    expect(foreign instanceof Error).toBe(false);
    expect(isDatabaseUnavailable(foreign)).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error('reset'), { code: 'ECONNRESET' }))).toBe(
      true,
    );
    expect(
      isDatabaseUnavailable(Object.assign(new Error('no such file'), { code: 'ENOENT' })),
    ).toBe(false);
  });
});
