import type { Document } from 'bson';
import { withDbRefFields } from './dbref-fields';
import { Query } from './mingo';
import type { MingoOptions } from './mingo-options';
import { viewOf } from './mingo-view';
import { aliasProto, namesProto } from './proto-fields';

/**
 * A query over stored documents: it tests their views (mingo-view.ts), with their `__proto__`
 * fields aliased when its filter names that field. The filter is read as mongod reads it, DBRef
 * field names included (dbref-fields.ts).
 */
class StoredQuery extends Query {
  private readonly aliased: boolean;

  constructor(criteria: Document, options: MingoOptions) {
    const filter = withDbRefFields(viewOf(criteria));
    const aliased = namesProto(filter);
    super(aliased ? aliasProto(filter) : filter, options);
    this.aliased = aliased;
  }

  override test<T extends Document>(obj: T): boolean {
    return super.test(viewOf(this.aliased && namesProto(obj) ? aliasProto(obj) : obj));
  }
}

/** mingo's Query for `criteria`, testing stored documents and taking `__proto__` as an ordinary field name. */
export function storedQuery(criteria: Document, options: MingoOptions): Query {
  return new StoredQuery(criteria, options);
}
