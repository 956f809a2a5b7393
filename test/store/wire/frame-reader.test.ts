import { FrameReader } from '../../../src/store/wire/frame-reader';
import { WireError } from '../../../src/store/wire/wire-error';

function frame(length: number, fill = 0): Buffer {
  const b = Buffer.alloc(length, fill);
  b.writeInt32LE(length, 0);
  return b;
}

describe('FrameReader', () => {
  it('cuts frames split across chunks and joined in one chunk', () => {
    const reader = new FrameReader();
    const a = frame(20, 1);
    const b = frame(30, 2);
    const all = Buffer.concat([a, b]);
    expect(reader.push(all.subarray(0, 2))).toEqual([]);
    expect(reader.push(all.subarray(2, 25))).toEqual([a]);
    expect(reader.push(all.subarray(25))).toEqual([b]);
  });

  it('rejects a length below the header size or above 48,000,000 bytes', () => {
    const small = Buffer.alloc(8);
    small.writeInt32LE(15, 0);
    expect(() => new FrameReader().push(small)).toThrow(WireError);
    const large = Buffer.alloc(8);
    large.writeInt32LE(48_000_001, 0);
    expect(() => new FrameReader().push(large)).toThrow(/invalid message length 48000001/);
  });
});
