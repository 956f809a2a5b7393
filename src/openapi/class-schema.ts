import 'reflect-metadata';
import { getMetadataStorage } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';
import type { MetadataStorage as TransformerMetadata } from 'class-transformer/types/MetadataStorage';
import type { JsonSchema, ObjectSchemaParts } from './json-schema';
import { ruleSchema } from './rule-schema';
import type { ClassType } from '../validation/class-type';

// class-transformer keeps `@Type()` targets in a storage its index does not export; its CommonJS
// build has it at this path (the types live apart from it, hence the typed require).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { defaultMetadataStorage } = require('class-transformer/cjs/storage') as {
  defaultMetadataStorage: TransformerMetadata;
};

/** Metadata types that say nothing about the value's shape, only whether it must be there. */
const PRESENCE_ONLY = new Set(['conditionalValidation', 'isDefined', 'whitelistValidation']);

/** Collects the component schemas of nested input classes while input classes are converted. */
export class SchemaRegistry {
  readonly components: Record<string, JsonSchema> = {};
  private readonly names = new Map<ClassType, string>();

  /** A `$ref` to the component of `cls`, converting it (once) on first use. */
  refTo(cls: ClassType): JsonSchema {
    let name = this.names.get(cls);
    if (name === undefined) {
      name = this.uniqueName(cls.name);
      this.names.set(cls, name);
      this.components[name] = {}; // reserved first, so a class nested in itself ends in a $ref
      this.components[name] = objectSchema(classSchemaParts(cls, this));
    }
    return { $ref: `#/components/schemas/${name}` };
  }

  private uniqueName(base: string): string {
    const taken = new Set(this.names.values());
    if (!taken.has(base)) return base;
    let n = 2;
    while (taken.has(`${base}${n}`)) n += 1;
    return `${base}${n}`;
  }
}

/** `{ type: object, properties, required, additionalProperties: false }`: unknown fields are rejected. */
export function objectSchema(parts: ObjectSchemaParts): JsonSchema {
  return {
    type: 'object',
    properties: parts.properties,
    ...(parts.required.length > 0 ? { required: parts.required } : {}),
    additionalProperties: false,
  };
}

function designType(cls: ClassType, property: string): unknown {
  return Reflect.getMetadata('design:type', cls.prototype, property);
}

function baseSchema(type: unknown): JsonSchema {
  if (type === String) return { type: 'string' };
  if (type === Number) return { type: 'number' };
  if (type === Boolean) return { type: 'boolean' };
  if (type === Array) return { type: 'array' };
  return {};
}

/** Later rules refine earlier ones: `integer` beats `number`, a `type` from a rule beats the design type. */
function merge(into: JsonSchema, fragment: JsonSchema): void {
  for (const [key, value] of Object.entries(fragment)) {
    if (key === 'type' && into.type === 'integer' && value === 'number') continue;
    if (key === 'description' && typeof into.description === 'string') {
      into.description = `${into.description}; ${String(value)}`;
      continue;
    }
    into[key] = value;
  }
}

function propertySchema(
  cls: ClassType,
  property: string,
  rules: ValidationMetadata[],
  registry: SchemaRegistry,
  defaultValue: unknown,
): JsonSchema {
  const schema: JsonSchema = baseSchema(designType(cls, property));
  const items: JsonSchema = {};
  let nested = false;
  for (const rule of rules) {
    if (PRESENCE_ONLY.has(rule.type)) continue;
    if (rule.type === 'nestedValidation') {
      nested = true;
      continue;
    }
    merge(rule.each ? items : schema, ruleSchema(rule));
  }
  if (nested) {
    const typeFn = defaultMetadataStorage.findTypeMetadata(cls, property)?.typeFunction;
    const target = typeFn ? typeFn() : designType(cls, property);
    if (typeof target === 'function' && target !== Array && target !== Object) {
      const ref = registry.refTo(target as ClassType);
      if (schema.type === 'array' || rules.some((rule) => rule.each)) Object.assign(items, ref);
      else Object.assign(schema, ref);
    }
  }
  if (Object.keys(items).length > 0) {
    schema.type = 'array';
    schema.items = items;
  }
  if (defaultValue !== undefined) schema.default = defaultValue;
  // A `$ref` with siblings is fine in 3.1, but keep a bare `type: object` from fighting it.
  if (typeof schema.$ref === 'string') delete schema.type;
  return schema;
}

/**
 * The JSON Schema of a class-validator decorated input class, from the same metadata the REST
 * layer validates with: one property per decorated field (the only ones accepted), required
 * unless `@IsOptional()`/`@ValidateIf()` or given a default, defaults from a fresh instance,
 * nested classes (`@ValidateNested()` + `@Type()`) as `$ref`s collected in `registry`.
 * (Written here rather than taken from class-validator-jsonschema, which types its output as
 * OpenAPI 3.0 schema objects and knows neither the project's own rules nor instance defaults.)
 */
export function classSchemaParts(cls: ClassType, registry: SchemaRegistry): ObjectSchemaParts {
  const metadata = getMetadataStorage().getTargetValidationMetadatas(cls, '', true, false);
  const byProperty = new Map<string, ValidationMetadata[]>();
  for (const rule of metadata) {
    const list = byProperty.get(rule.propertyName) ?? [];
    list.push(rule);
    byProperty.set(rule.propertyName, list);
  }
  let defaults: Record<string, unknown> = {};
  try {
    defaults = new (cls as new () => Record<string, unknown>)();
  } catch {
    // A class that cannot be built without arguments simply documents no defaults.
  }
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [property, rules] of byProperty) {
    const defaultValue = defaults[property];
    properties[property] = propertySchema(cls, property, rules, registry, defaultValue);
    const optional = rules.some((rule) => rule.type === 'conditionalValidation');
    if (!optional && defaultValue === undefined) required.push(property);
  }
  return { properties, required };
}
