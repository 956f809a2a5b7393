import { collationKey, parseCollation, type Collation } from '../../../src/store/query/collation';
import { Catalog } from '../../../src/store/storage/catalog';
import { MemoryJournal } from '../../../src/store/storage/memory-journal';

const parsed = (spec: object): Collation => parseCollation(spec)!;

describe('parseCollation', () => {
  it('fills in every field mongod reports, and reads "simple" as no collation', () => {
    expect(parsed({ locale: 'fr_CA', strength: 1 }).spec).toEqual({
      locale: 'fr_CA',
      caseLevel: false,
      caseFirst: 'off',
      strength: 1,
      numericOrdering: false,
      alternate: 'non-ignorable',
      maxVariable: 'punct',
      normalization: false,
      backwards: false,
      version: '57.1',
    });
    expect(parseCollation({ locale: 'simple' })).toBeNull();
  });

  it('accepts ICU locale names only as ICU spells them', () => {
    expect(parsed({ locale: 'zh_Hant' }).spec.locale).toBe('zh_Hant');
    for (const locale of ['en-US', 'en_us', 'xx', '']) {
      expect(() => parseCollation({ locale })).toThrow(expect.objectContaining({ code: 2 }));
    }
  });

  it('refuses what Intl.Collator cannot do instead of ignoring it', () => {
    for (const extra of [
      { strength: 4 },
      { strength: 5 },
      { backwards: true },
      { alternate: 'shifted', maxVariable: 'space' },
    ]) {
      expect(() => parseCollation({ locale: 'en', ...extra })).toThrow(
        /not supported by the embedded store/,
      );
    }
    expect(() => parseCollation({ locale: 'de@collation=phonebook' })).toThrow(
      /not supported by the embedded store/,
    );
  });

  it('checks types, ranges and combinations with mongod codes', () => {
    expect(() => parseCollation({ locale: 1 })).toThrow(expect.objectContaining({ code: 14 }));
    expect(() => parseCollation({ strength: 2 })).toThrow(expect.objectContaining({ code: 40414 }));
    expect(() => parseCollation({ locale: 'en', strength: 0 })).toThrow(
      expect.objectContaining({ code: 51024 }),
    );
    expect(() => parseCollation({ locale: 'en', caseFirst: 'sideways' })).toThrow(
      expect.objectContaining({ code: 2 }),
    );
    expect(() => parseCollation({ locale: 'en', version: '60.2' })).toThrow(
      expect.objectContaining({ code: 161 }),
    );
  });
});

describe('collationKey', () => {
  const key = (s: string, spec: object) => collationKey(s, parsed({ locale: 'en', ...spec }));

  it('folds what each strength ignores', () => {
    expect(key('Résumé', { strength: 1 })).toBe(key('resume', { strength: 1 }));
    expect(key('Résumé', { strength: 2 })).toBe(key('rÉsumÉ', { strength: 2 }));
    expect(key('Résumé', { strength: 2 })).not.toBe(key('resume', { strength: 2 }));
    expect(key('Résumé', { strength: 3 })).not.toBe(key('résumé', { strength: 3 }));
    expect(key('Re\u0301sume\u0301', { strength: 3 })).toBe(key('Résumé', { strength: 3 }));
    expect(key('A', { strength: 1, caseLevel: true })).not.toBe(
      key('a', { strength: 1, caseLevel: true }),
    );
    expect(key('item 007', { numericOrdering: true })).toBe(
      key('item 7', { numericOrdering: true }),
    );
    expect(key('e-mail', { alternate: 'shifted' })).toBe(key('email', { alternate: 'shifted' }));
  });
});

describe('stored collations', () => {
  it('opens a journal whose index holds a collation that no longer parses, comparing bytewise', async () => {
    const catalog = await Catalog.open(
      new MemoryJournal([
        {
          op: 'createIndexes',
          ns: 'db.c',
          specs: [
            { v: 2, key: { name: 1 }, name: 'name_1', unique: true, collation: { locale: 'xx' } },
          ],
        },
        {
          op: 'insert',
          ns: 'db.c',
          docs: [
            { _id: 1, name: 'a' },
            { _id: 2, name: 'A' },
          ],
        },
      ]),
    );
    expect(catalog.collection('db', 'c')!.indexes.get('name_1')!.keyCount).toBe(2);
  });
});
