import { ExecutionGate } from '../../src/graphql/jit/execution-gate';

/** Work that only computes: `steps` promise jobs, each noting `name`. */
async function compute(log: string[], name: string, steps = 5): Promise<string> {
  for (let step = 0; step < steps; step += 1) {
    log.push(name);
    await Promise.resolve();
  }
  return name;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('ExecutionGate', () => {
  it('runs executions that only compute one at a time, in arrival order, where they would advance in turns', async () => {
    const ungated: string[] = [];
    await Promise.all(['a', 'b', 'c'].map((name) => compute(ungated, name)));
    expect(ungated.join('')).toBe('abcabcabcabcabc');

    const gate = new ExecutionGate();
    const log: string[] = [];
    const results = await Promise.all(
      ['a', 'b', 'c'].map((name) => gate.run(() => compute(log, name))),
    );
    expect(results).toEqual(['a', 'b', 'c']);
    expect(log.join('')).toBe('aaaaabbbbbccccc');
    expect(gate.waiting).toBe(0);
  });

  it('lets the next execution in while one waits outside the process', async () => {
    const gate = new ExecutionGate();
    const finished: string[] = [];
    const waiting = gate.run(async () => {
      await sleep(30);
      finished.push('waited');
    });
    const computing = gate.run(async () => {
      await compute([], 'b');
      finished.push('computed');
    });
    await Promise.all([waiting, computing]);
    expect(finished).toEqual(['computed', 'waited']);
  });

  it('passes on after a failure, and the failure reaches its caller', async () => {
    const gate = new ExecutionGate();
    const log: string[] = [];
    const failing = gate.run(async () => {
      await compute(log, 'a', 2);
      throw new Error('resolver failed');
    });
    const next = gate.run(() => compute(log, 'b', 2));
    await expect(failing).rejects.toThrow('resolver failed');
    await expect(next).resolves.toBe('b');
    expect(log.join('')).toBe('aabb');
    expect(gate.waiting).toBe(0);
  });

  it('admits an arrival at once when nothing computes', async () => {
    const gate = new ExecutionGate();
    await gate.run(() => compute([], 'a'));
    const log: string[] = [];
    const later = gate.run(() => compute(log, 'b', 1));
    expect(gate.waiting).toBe(0);
    await later;
    expect(log).toEqual(['b']);
  });
});
