import 'reflect-metadata';
import type { MetadataStorage as TransformerMetadata } from 'class-transformer/types/MetadataStorage';
import { getMetadataStorage, ValidationTypes } from 'class-validator';
import { targetConstructorToSchema } from 'class-validator-jsonschema';
import type { ClassType } from '../validation/class-type';
import { objectSchema, type JsonSchema, type ObjectSchemaParts } from './json-schema';

// class-transformer keeps `@Type()` targets in a storage its index does not export; its CommonJS
// build has it at this path (the types live apart from it, hence the typed require). This is how
// class-validator-jsonschema's README passes it.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { defaultMetadataStorage } = require('class-transformer/cjs/storage') as {
  defaultMetadataStorage: TransformerMetadata;
};

type ConverterOptions = NonNullable<Parameters<typeof targetConstructorToSchema>[1]>;

const COMPONENTS = '#/components/schemas/';

const OPTIONS: ConverterOptions = {
  classTransformerMetadataStorage: defaultMetadataStorage,
  refPointerPrefix: COMPONENTS,
  // The project's own rules (src/validation/rules.ts) the package cannot know; the composed ones
  // (IsEntityId, IsMemberEmail, IsTargetAmounts, ...) are class-validator rules it converts itself.
  additionalConverters: {
    isCurrencyCode: {
      type: 'string',
      pattern: '^[A-Za-z]{3}$',
      description: 'ISO 4217 alphabetic currency code, any case (stored upper-case)',
    },
    isCadenceDay: {
      type: ['string', 'integer'],
      description: 'monday..sunday when every is "week", 1..28 when every is "month"',
    },
  },
};

/** What a fresh instance holds before input is applied: the defaults of the input class. */
function instanceDefaults(cls: ClassType): Record<string, unknown> {
  try {
    return { ...(new (cls as new () => object)() as Record<string, unknown>) };
  } catch {
    return {}; // a class that cannot be built without arguments documents no defaults
  }
}

/** The classes `cls` validates nested (`@ValidateNested()` with `@Type()`), as the package finds them. */
function nestedClasses(cls: ClassType): ClassType[] {
  const classes: ClassType[] = [];
  for (const rule of getMetadataStorage().getTargetValidationMetadatas(cls, '', true, false)) {
    if (rule.type !== ValidationTypes.NESTED_VALIDATION) continue;
    const target = rule.target as ClassType;
    const typed = defaultMetadataStorage.findTypeMetadata(target, rule.propertyName);
    const nested: unknown = typed
      ? typed.typeFunction()
      : Reflect.getMetadata('design:type', target.prototype, rule.propertyName);
    if (typeof nested === 'function' && nested !== Array && nested !== Object)
      classes.push(nested as ClassType);
  }
  return classes;
}

/**
 * The JSON Schemas of class-validator decorated input classes, from the metadata the REST layer
 * validates with, converted by class-validator-jsonschema: one property per decorated field (the
 * only ones accepted, so `additionalProperties: false`), required unless `@IsOptional()` or given
 * a default, the defaults of a fresh instance, and nested input classes as `$ref`s to the
 * components collected in `components`.
 */
export class InputSchemas {
  readonly components: Record<string, JsonSchema> = {};
  private readonly named = new Map<string, ClassType>();

  /** The properties of `cls` and which are required; its nested classes join `components`. */
  partsOf(cls: ClassType): ObjectSchemaParts {
    const schema = targetConstructorToSchema(cls, OPTIONS) as {
      properties?: Record<string, JsonSchema>;
      required?: string[];
    };
    const properties = schema.properties ?? {};
    const defaults = instanceDefaults(cls);
    for (const [name, value] of Object.entries(defaults))
      if (value !== undefined && properties[name])
        properties[name] = { ...properties[name], default: value };
    const required = (schema.required ?? []).filter((name) => defaults[name] === undefined);
    for (const nested of nestedClasses(cls)) this.addComponent(nested);
    return { properties, required };
  }

  private addComponent(cls: ClassType): void {
    const known = this.named.get(cls.name);
    if (known === cls) return;
    // The package names a nested class's `$ref` after the class, so two classes must not share one.
    if (known)
      throw new Error(
        `Expected one nested input class named ${cls.name}, got two: rename one of them`,
      );
    this.named.set(cls.name, cls);
    this.components[cls.name] = {}; // reserved first, so a class nested in itself ends in a $ref
    this.components[cls.name] = objectSchema(this.partsOf(cls));
  }
}
