import { StoreError } from '../errors';

interface PathNode {
  /** What the node's children address: fields of a document (`$` included) or `$[...]` elements. */
  kind?: 'fields' | 'elements';
  leaf: boolean;
  children: Map<string, PathNode>;
}

/**
 * mongod's parse-time conflict rule. The update's paths, in the order given, are merged into one
 * tree: a path may not end where another ends or passes, nor pass where another ends, and a
 * field may not be addressed both by name (`a.b`, `a.0`, `a.$`) and by array filter (`a.$[]`,
 * `a.$[i]`). Positional parts are compared as written: `a.$[i].x` and `a.$[j].x` only conflict
 * if they reach the same element, which is known once the document is at hand.
 */
export function checkConflicts(paths: string[]): void {
  const root: PathNode = { leaf: false, children: new Map() };
  for (const path of paths) {
    const parts = path.split('.');
    let node = root;
    for (let i = 0; i < parts.length; i++) {
      const kind = parts[i].startsWith('$[') ? 'elements' : 'fields';
      if (node.leaf || (node.kind && node.kind !== kind))
        throw conflict(path, parts.slice(0, i).join('.'));
      node.kind = kind;
      let child = node.children.get(parts[i]);
      if (!child) node.children.set(parts[i], (child = { leaf: false, children: new Map() }));
      node = child;
    }
    if (node.leaf || node.children.size > 0) throw conflict(path, path);
    node.leaf = true;
  }
}

function conflict(path: string, at: string): StoreError {
  return new StoreError(
    'ConflictingUpdateOperators',
    `Updating the path '${path}' would create a conflict at '${at}'`,
  );
}
