import 'reflect-metadata';
import { isObjectType } from 'graphql';
import { getMetadataStorage } from 'type-graphql';
import { buildGatewaySchema } from '../../src/graphql/build-schema';

describe('GraphQL object fields', () => {
  it('are read straight off the object, except the field resolvers the resolver classes declare', async () => {
    const schema = await buildGatewaySchema();
    const declared = new Set(
      getMetadataStorage().fieldResolvers.map(
        (resolver) => `${resolver.getObjectType!().name}.${resolver.schemaName}`,
      ),
    );
    const roots = new Set([
      schema.getQueryType(),
      schema.getMutationType(),
      schema.getSubscriptionType(),
    ]);
    const wrapped: string[] = [];
    let plain = 0;
    for (const type of Object.values(schema.getTypeMap())) {
      if (!isObjectType(type) || type.name.startsWith('__') || roots.has(type)) continue;
      for (const field of Object.values(type.getFields())) {
        const name = `${type.name}.${field.name}`;
        if (field.resolve === undefined) plain += 1;
        else if (!declared.has(name)) wrapped.push(name);
      }
    }
    // A type declared without `simpleResolvers: true` gets type-graphql's per-field wrapper.
    expect(wrapped).toEqual([]);
    expect(plain).toBeGreaterThan(50);
  });
});
