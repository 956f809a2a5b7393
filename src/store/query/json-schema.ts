import type { Document } from 'bson';
import { StoreError } from '../errors';
import { canonicalKey } from '../storage/canonical-key';
import { isPlainObject } from '../storage/document-paths';
import { BSON_TYPE_CODES, bsonTypeCode, NUMERIC_TYPE_CODES } from './bson-types';
import { originalOf } from './mingo-view';

/**
 * mongod's `$jsonSchema` (draft 4 with `bsonType`, minus `$ref`, `format` and the other keywords
 * it refuses), compiled once into a test. General JSON Schema libraries judge JavaScript values,
 * not BSON ones (an ObjectId or a Date is not an "object" here), so the keywords are checked
 * directly. As in mongod, a keyword about one type holds for values of any other type.
 */
export type SchemaTest = (value: unknown) => boolean;

const UNSUPPORTED = new Set(['$ref', '$schema', 'default', 'definitions', 'format', 'id']);
const ANNOTATIONS = new Set(['title', 'description']);
const JSON_TYPES = new Set(['object', 'array', 'number', 'boolean', 'string', 'null']);
const BSON_TYPES = new Set([...Object.keys(BSON_TYPE_CODES), 'number']);

export function compileJsonSchema(schema: unknown): SchemaTest {
  if (!isPlainObject(schema)) throw new StoreError('TypeMismatch', '$jsonSchema must be an object');
  const test = compile(schema);
  // mingo hands over its view of a document (mingo-view.ts): the types are in the stored one.
  return (doc) => test(originalOf(doc));
}

function compile(schema: Document): SchemaTest {
  const tests: SchemaTest[] = [];
  if ('type' in schema && 'bsonType' in schema) {
    throw parseError("Cannot specify both $jsonSchema keywords 'type' and 'bsonType'");
  }
  for (const [keyword, arg] of Object.entries(schema)) {
    if (UNSUPPORTED.has(keyword))
      throw parseError(`$jsonSchema keyword '${keyword}' is not currently supported`);
    if (ANNOTATIONS.has(keyword)) {
      if (typeof arg !== 'string') throw typeError(keyword, 'a string');
      continue;
    }
    const test = KEYWORDS[keyword];
    if (!test) throw parseError(`Unknown $jsonSchema keyword: ${keyword}`);
    tests.push(test(arg, schema));
  }
  return (value) => tests.every((t) => t(value));
}

type Keyword = (arg: unknown, schema: Document) => SchemaTest;

const KEYWORDS: Record<string, Keyword> = {
  type: (arg) => typeKeyword('type', arg, JSON_TYPES, jsonTypeMatches),
  bsonType: (arg) => typeKeyword('bsonType', arg, BSON_TYPES, bsonTypeMatches),
  enum: (arg) => {
    if (!Array.isArray(arg) || arg.length === 0) throw typeError('enum', 'a non-empty array');
    const keys = new Set(arg.map(canonicalKey));
    return (v) => keys.has(canonicalKey(v));
  },
  minimum: (arg, schema) =>
    numberBound(
      'minimum',
      arg,
      schema.exclusiveMinimum === true ? (v, b) => v > b : (v, b) => v >= b,
    ),
  maximum: (arg, schema) =>
    numberBound(
      'maximum',
      arg,
      schema.exclusiveMaximum === true ? (v, b) => v < b : (v, b) => v <= b,
    ),
  exclusiveMinimum: (arg, schema) => exclusiveFlag('exclusiveMinimum', 'minimum', arg, schema),
  exclusiveMaximum: (arg, schema) => exclusiveFlag('exclusiveMaximum', 'maximum', arg, schema),
  multipleOf: (arg) => {
    const m = number('multipleOf', arg);
    if (m <= 0) throw badValue("$jsonSchema keyword 'multipleOf' must have a positive value");
    return (v) => {
      const n = numeric(v);
      return n === undefined || Number.isInteger(n / m);
    };
  },
  minLength: (arg) =>
    count(
      'minLength',
      arg,
      (v) => (typeof v === 'string' ? [...v].length : undefined),
      (n, b) => n >= b,
    ),
  maxLength: (arg) =>
    count(
      'maxLength',
      arg,
      (v) => (typeof v === 'string' ? [...v].length : undefined),
      (n, b) => n <= b,
    ),
  pattern: (arg) => {
    if (typeof arg !== 'string') throw typeError('pattern', 'a string');
    let re: RegExp;
    try {
      re = new RegExp(arg, 'u');
    } catch {
      throw badValue(`$jsonSchema keyword 'pattern' is not a valid regular expression: ${arg}`);
    }
    return (v) => typeof v !== 'string' || re.test(v);
  },
  minProperties: (arg) => count('minProperties', arg, propertyCount, (n, b) => n >= b),
  maxProperties: (arg) => count('maxProperties', arg, propertyCount, (n, b) => n <= b),
  required: (arg) => {
    if (!Array.isArray(arg) || arg.length === 0 || !arg.every((f) => typeof f === 'string')) {
      throw typeError('required', 'a non-empty array of strings');
    }
    if (new Set(arg).size !== arg.length)
      throw badValue("$jsonSchema keyword 'required' array must not contain duplicate values");
    return (v) => !isPlainObject(v) || arg.every((f) => Object.hasOwn(v, f));
  },
  properties: (arg) => {
    const props = subSchemas('properties', arg);
    return (v) =>
      !isPlainObject(v) || Object.entries(props).every(([f, t]) => !Object.hasOwn(v, f) || t(v[f]));
  },
  patternProperties: (arg) => {
    const patterns = Object.entries(subSchemas('patternProperties', arg)).map(
      ([p, t]) => [new RegExp(p, 'u'), t] as const,
    );
    return (v) =>
      !isPlainObject(v) ||
      Object.entries(v).every(([f, fv]) => patterns.every(([re, t]) => !re.test(f) || t(fv)));
  },
  additionalProperties: (arg, schema) => {
    const known = isPlainObject(schema.properties) ? Object.keys(schema.properties) : [];
    const patterns = isPlainObject(schema.patternProperties)
      ? Object.keys(schema.patternProperties).map((p) => new RegExp(p, 'u'))
      : [];
    const extra = booleanOrSchema('additionalProperties', arg);
    return (v) =>
      !isPlainObject(v) ||
      Object.entries(v).every(
        ([f, fv]) => known.includes(f) || patterns.some((re) => re.test(f)) || extra(fv),
      );
  },
  dependencies: (arg) => {
    if (!isPlainObject(arg)) throw typeError('dependencies', 'an object');
    const deps = Object.entries(arg).map(([f, dep]): [string, SchemaTest] => {
      if (isPlainObject(dep)) return [f, compile(dep)];
      if (Array.isArray(dep) && dep.every((d) => typeof d === 'string'))
        return [f, (v) => dep.every((d) => Object.hasOwn(v as Document, d))];
      throw typeError('dependencies', 'an object of schemas or arrays of strings');
    });
    return (v) => !isPlainObject(v) || deps.every(([f, t]) => !Object.hasOwn(v, f) || t(v));
  },
  items: (arg) => {
    if (isPlainObject(arg)) {
      const t = compile(arg);
      return (v) => !Array.isArray(v) || v.every(t);
    }
    if (!Array.isArray(arg)) throw typeError('items', 'an object or an array of objects');
    const tuple = arg.map((s) =>
      isPlainObject(s) ? compile(s) : throwType('items', 'an object or an array of objects'),
    );
    return (v) => !Array.isArray(v) || tuple.every((t, i) => i >= v.length || t(v[i]));
  },
  additionalItems: (arg, schema) => {
    const extra = booleanOrSchema('additionalItems', arg);
    const tupleLength = Array.isArray(schema.items) ? schema.items.length : null;
    return (v) => tupleLength === null || !Array.isArray(v) || v.slice(tupleLength).every(extra);
  },
  minItems: (arg) =>
    count(
      'minItems',
      arg,
      (v) => (Array.isArray(v) ? v.length : undefined),
      (n, b) => n >= b,
    ),
  maxItems: (arg) =>
    count(
      'maxItems',
      arg,
      (v) => (Array.isArray(v) ? v.length : undefined),
      (n, b) => n <= b,
    ),
  uniqueItems: (arg) => {
    if (typeof arg !== 'boolean') throw typeError('uniqueItems', 'a boolean');
    return (v) => !arg || !Array.isArray(v) || new Set(v.map(canonicalKey)).size === v.length;
  },
  allOf: (arg) => {
    const all = schemaList('allOf', arg);
    return (v) => all.every((t) => t(v));
  },
  anyOf: (arg) => {
    const any = schemaList('anyOf', arg);
    return (v) => any.some((t) => t(v));
  },
  oneOf: (arg) => {
    const one = schemaList('oneOf', arg);
    return (v) => one.filter((t) => t(v)).length === 1;
  },
  not: (arg) => {
    if (!isPlainObject(arg)) throw typeError('not', 'an object');
    const t = compile(arg);
    return (v) => !t(v);
  },
};

function typeKeyword(
  keyword: string,
  arg: unknown,
  known: Set<string>,
  matches: (v: unknown, type: string) => boolean,
): SchemaTest {
  const types = Array.isArray(arg) ? arg : [arg];
  if (types.length === 0 || !types.every((t) => typeof t === 'string'))
    throw typeError(keyword, 'a string or an array of strings');
  for (const t of types as string[]) {
    if (keyword === 'type' && t === 'integer')
      throw badValue("$jsonSchema type 'integer' is not currently supported.");
    if (!known.has(t)) throw badValue(`Unknown type name alias: ${t}`);
  }
  return (v) => (types as string[]).some((t) => matches(v, t));
}

function jsonTypeMatches(v: unknown, type: string): boolean {
  if (type === 'boolean') return typeof v === 'boolean';
  return bsonTypeMatches(v, type === 'number' ? 'number' : type);
}

function bsonTypeMatches(v: unknown, type: string): boolean {
  const actual = bsonTypeCode(v);
  return type === 'number' ? NUMERIC_TYPE_CODES.has(actual) : actual === BSON_TYPE_CODES[type];
}

function numeric(v: unknown): number | undefined {
  if (typeof v === 'number') return v;
  const bsonType = (v as { _bsontype?: string } | null)?._bsontype;
  if (
    bsonType === 'Long' ||
    bsonType === 'Int32' ||
    bsonType === 'Double' ||
    bsonType === 'Decimal128'
  )
    return Number(String(v));
  return undefined;
}

function number(keyword: string, arg: unknown): number {
  const n = numeric(arg);
  if (n === undefined) throw typeError(keyword, 'a number');
  return n;
}

function numberBound(
  keyword: string,
  arg: unknown,
  holds: (v: number, bound: number) => boolean,
): SchemaTest {
  const bound = number(keyword, arg);
  return (v) => {
    const n = numeric(v);
    return n === undefined || holds(n, bound);
  };
}

function exclusiveFlag(keyword: string, bound: string, arg: unknown, schema: Document): SchemaTest {
  if (typeof arg !== 'boolean') throw typeError(keyword, 'a boolean');
  if (!(bound in schema))
    throw parseError(`${keyword} cannot be present without the corresponding '${bound}'`);
  return () => true; // applied by the bound's own test
}

function count(
  keyword: string,
  arg: unknown,
  measure: (v: unknown) => number | undefined,
  holds: (n: number, bound: number) => boolean,
): SchemaTest {
  const bound = number(keyword, arg);
  if (!Number.isInteger(bound) || bound < 0)
    throw badValue(
      `$jsonSchema keyword '${keyword}' must be a representable as a non-negative integer`,
    );
  return (v) => {
    const n = measure(v);
    return n === undefined || holds(n, bound);
  };
}

function propertyCount(v: unknown): number | undefined {
  return isPlainObject(v) ? Object.keys(v).length : undefined;
}

function subSchemas(keyword: string, arg: unknown): Record<string, SchemaTest> {
  if (!isPlainObject(arg)) throw typeError(keyword, 'an object');
  const out: Record<string, SchemaTest> = Object.create(null) as Record<string, SchemaTest>;
  for (const [field, schema] of Object.entries(arg)) {
    if (!isPlainObject(schema)) throw typeError(`${keyword}.${field}`, 'an object');
    out[field] = compile(schema);
  }
  return out;
}

function booleanOrSchema(keyword: string, arg: unknown): SchemaTest {
  if (typeof arg === 'boolean') return () => arg;
  if (isPlainObject(arg)) return compile(arg);
  throw typeError(keyword, 'a boolean or an object');
}

function schemaList(keyword: string, arg: unknown): SchemaTest[] {
  if (!Array.isArray(arg) || arg.length === 0) throw typeError(keyword, 'a non-empty array');
  return arg.map((s) =>
    isPlainObject(s) ? compile(s) : throwType(keyword, 'a non-empty array of objects'),
  );
}

function throwType(keyword: string, what: string): never {
  throw typeError(keyword, what);
}

const parseError = (message: string): StoreError => new StoreError('FailedToParse', message);
const badValue = (message: string): StoreError => new StoreError('BadValue', message);
const typeError = (keyword: string, what: string): StoreError =>
  new StoreError('TypeMismatch', `$jsonSchema keyword '${keyword}' must be ${what}`);
