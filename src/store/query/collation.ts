import type { Document } from 'bson';
import { StoreError } from '../errors';
import { formatKeyValue } from '../storage/format-key';
import { isPlainObject } from '../storage/document-paths';
import { describeType } from './filter';
import type { MingoOptions } from './mingo-options';
import { viewOf } from './mingo-view';

/** The ICU version mongod 7.0 reports in every collation spec. */
export const ICU_VERSION = '57.1';

/** A parsed, non-simple collation: the spec mongod reports and the comparator it implies. */
export interface Collation {
  /** Every field filled in, as listIndexes/listCollections show it. */
  readonly spec: Document;
  readonly compare: (a: string, b: string) => number;
  /** The same rules in mingo's terms (its `$sort` builds its own Intl.Collator from them). */
  readonly mingo: NonNullable<MingoOptions['collation']>;
}

const FIELDS = new Set([
  'locale',
  'caseLevel',
  'caseFirst',
  'strength',
  'numericOrdering',
  'alternate',
  'maxVariable',
  'normalization',
  'backwards',
  'version',
]);

// Building an Intl.Collator costs far more than a comparison: specs seen before are reused.
const cache = new Map<string, Collation | null>();
const CACHE_LIMIT = 256;

/**
 * Parses a collation document as mongod does: null for the simple (binary) collation, else the
 * ICU rules through Intl.Collator. Options Intl cannot express are refused rather than ignored.
 */
export function parseCollation(raw: unknown): Collation | null {
  if (!isPlainObject(raw)) {
    throw new StoreError(
      'TypeMismatch',
      `BSON field 'collation' is the wrong type '${describeType(raw)}', expected type 'object'`,
    );
  }
  // Numeric options are read as numbers whatever their BSON type (mongosh sends doubles).
  const spec = viewOf(raw);
  const cacheKey = JSON.stringify(spec);
  const known = cache.get(cacheKey);
  if (known !== undefined) return known;
  const parsed = buildCollation(spec);
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(cacheKey, parsed);
  return parsed;
}

/**
 * The collation an operation runs with: its own `collation` argument when given (an empty
 * document counts as not given, as in mongod), else the collection's default.
 */
export function operationCollation(
  explicit: unknown,
  collectionOptions: Document | undefined,
): Collation | null {
  if (
    explicit !== undefined &&
    explicit !== null &&
    !(isPlainObject(explicit) && Object.keys(explicit).length === 0)
  ) {
    return parseCollation(explicit);
  }
  const fallback = collectionOptions?.collation;
  return fallback ? parseCollation(fallback) : null;
}

function buildCollation(raw: Document): Collation | null {
  for (const field of Object.keys(raw)) {
    if (!FIELDS.has(field))
      throw new StoreError('Location40415', `BSON field 'collation.${field}' is an unknown field.`);
  }
  if (raw.locale === undefined)
    throw new StoreError(
      'Location40414',
      "BSON field 'collation.locale' is missing but a required field",
    );
  const locale = typed(raw, 'locale', 'string') as string;
  const caseLevel = (typed(raw, 'caseLevel', 'bool') as boolean | undefined) ?? false;
  const caseFirst = (enumerated(raw, 'caseFirst', ['upper', 'lower', 'off']) ?? 'off') as
    'upper' | 'lower' | 'off';
  const strength = strengthOf(raw);
  const numericOrdering = (typed(raw, 'numericOrdering', 'bool') as boolean | undefined) ?? false;
  const alternate = enumerated(raw, 'alternate', ['non-ignorable', 'shifted']) ?? 'non-ignorable';
  const maxVariable = enumerated(raw, 'maxVariable', ['punct', 'space']) ?? 'punct';
  const normalization = (typed(raw, 'normalization', 'bool') as boolean | undefined) ?? false;
  const backwards = (typed(raw, 'backwards', 'bool') as boolean | undefined) ?? false;
  const version = typed(raw, 'version', 'string') as string | undefined;
  if (locale === 'simple') return null;
  if (locale.includes('\0'))
    throw new StoreError(
      'BadValue',
      `Field 'locale' cannot contain null byte. Collation spec: ${formatKeyValue(raw)}`,
    );
  if (locale === '')
    throw new StoreError(
      'BadValue',
      `Field 'locale' cannot be the empty string in: ${formatKeyValue(raw)}`,
    );
  const tag = intlTag(locale, raw);
  if (version !== undefined && version !== ICU_VERSION) {
    throw new StoreError(
      'IncompatibleCollationVersion',
      `Requested collation version ${version} but the only available collator version was ${ICU_VERSION}. Requested collation spec: ${formatKeyValue(raw)}`,
    );
  }
  if (backwards && strength === 1) {
    throw new StoreError(
      'BadValue',
      `'backwards' is invalid with 'strength' of 1 in: ${formatKeyValue(raw)}`,
    );
  }
  if (caseFirst !== 'off' && !caseLevel && strength <= 2) {
    throw new StoreError(
      'BadValue',
      `'caseFirst' is invalid unless 'caseLevel' is on or 'strength' is greater than 2 in: ${formatKeyValue(raw)}`,
    );
  }
  // What Intl.Collator has no setting for: refused, so a result never silently differs.
  if (strength > 3) unsupported(`collation strength ${strength} (quaternary and identical levels)`);
  if (backwards) unsupported("collation option 'backwards: true'");
  if (alternate === 'shifted' && maxVariable === 'space')
    unsupported('collation option \'maxVariable: "space"\' with \'alternate: "shifted"\'');
  const collator = new Intl.Collator(tag, {
    usage: 'sort',
    sensitivity:
      strength === 1
        ? caseLevel
          ? 'case'
          : 'base'
        : strength === 2
          ? caseLevel
            ? 'variant'
            : 'accent'
          : 'variant',
    caseFirst: caseFirst === 'off' ? 'false' : caseFirst,
    numeric: numericOrdering,
    ignorePunctuation: alternate === 'shifted',
  });
  const spec = {
    locale,
    caseLevel,
    caseFirst,
    strength,
    numericOrdering,
    alternate,
    maxVariable,
    normalization,
    backwards,
    version: ICU_VERSION,
  };
  return {
    spec,
    compare: collator.compare,
    mingo: {
      locale: tag,
      caseLevel,
      caseFirst,
      strength: strength as 1 | 2 | 3,
      numericOrdering,
      alternate,
    },
  };
}

/**
 * mongod accepts an ICU locale ID exactly as ICU names it ("en_US", "zh_Hant"): anything ICU
 * would rename or fall back from is invalid. Intl speaks BCP 47 ("en-US"), and reports the same
 * tag back only when it has data for it.
 */
function intlTag(locale: string, raw: Document): string {
  if (locale.includes('@')) unsupported(`ICU locale keywords ("${locale}")`);
  const tag = locale.replace(/_/g, '-');
  let supported: string[] = [];
  if (!locale.includes('-')) {
    try {
      supported = Intl.Collator.supportedLocalesOf([tag]);
    } catch {
      // Not even a well-formed tag: invalid, as below.
    }
  }
  if (supported.length !== 1 || supported[0] !== tag) {
    throw new StoreError('BadValue', `Field 'locale' is invalid in: ${formatKeyValue(raw)}`);
  }
  return tag;
}

function strengthOf(raw: Document): number {
  const strength = typed(raw, 'strength', 'int') as number | undefined;
  if (strength === undefined) return 3;
  if (!Number.isInteger(strength) || strength < 1 || strength > 5) {
    throw new StoreError(
      'Location51024',
      `BSON field 'collation.strength' value must be >= 1 and <= 5, actual value '${strength}'`,
    );
  }
  return strength;
}

function typed(raw: Document, field: string, type: 'string' | 'bool' | 'int'): unknown {
  const v = raw[field];
  if (v === undefined) return undefined;
  const ok =
    type === 'string'
      ? typeof v === 'string'
      : type === 'bool'
        ? typeof v === 'boolean'
        : typeof v === 'number';
  if (!ok) {
    const expected = type === 'int' ? "types '[long, int, decimal, double]'" : `type '${type}'`;
    throw new StoreError(
      'TypeMismatch',
      `BSON field 'collation.${field}' is the wrong type '${describeType(v)}', expected ${expected}`,
    );
  }
  return v;
}

function enumerated(raw: Document, field: string, values: string[]): string | undefined {
  const v = typed(raw, field, 'string') as string | undefined;
  if (v !== undefined && !values.includes(v)) {
    throw new StoreError(
      'BadValue',
      `Enumeration value '${v}' for field 'collation.${field}' is not a valid value.`,
    );
  }
  return v;
}

function unsupported(what: string): never {
  throw new StoreError('BadValue', `${what} is not supported by the embedded store`);
}

/**
 * A hash key for a string under `collation`, for unique indexes: strings the collation holds
 * equal should share it. Intl.Collator has no sort keys, so this folds with Unicode's own
 * operations (case mapping, canonical decomposition, marks) in the way each strength ignores
 * differences; it agrees with ICU for case and combining accents, not for expansions such as
 * "ß"/"ss" or letters a locale treats as distinct (DIFFERENCES.md).
 */
export function collationKey(s: string, collation: Collation): string {
  const { locale, strength, caseLevel, numericOrdering, alternate } = collation.spec as {
    locale: string;
    strength: number;
    caseLevel: boolean;
    numericOrdering: boolean;
    alternate: string;
  };
  let folded = s.normalize('NFD');
  if (alternate === 'shifted') folded = folded.replace(/[\p{P}\p{Z}]/gu, '');
  if (numericOrdering) folded = folded.replace(/\d+/g, (digits) => digits.replace(/^0+(?=\d)/, ''));
  if (strength === 1) folded = folded.replace(/\p{M}/gu, '');
  if (strength <= 2 && !caseLevel) folded = folded.toLocaleLowerCase(locale.replace(/_/g, '-'));
  return `c${JSON.stringify(folded)}`;
}
