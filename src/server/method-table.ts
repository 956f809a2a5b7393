/**
 * Internal: which methods each registered path pattern answers, so an unmatched request can be
 * told apart as 405 (known path, other method; with `Allow`) or 404 (unknown path).
 */
export class MethodTable {
  private readonly entries = new Map<string, { pattern: RegExp; methods: Set<string> }>();

  add(path: string, methods: string | string[]): void {
    let entry = this.entries.get(path);
    if (!entry) {
      const source = path
        .split('/')
        .map((segment) =>
          segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
        )
        .join('/');
      entry = { pattern: new RegExp(`^${source}/?$`), methods: new Set() };
      this.entries.set(path, entry);
    }
    for (const method of Array.isArray(methods) ? methods : [methods])
      entry.methods.add(method.toUpperCase());
  }

  /** Methods allowed on `pathname` across every pattern it matches; empty for an unknown path. */
  allowed(pathname: string): string[] {
    const methods = new Set<string>();
    for (const { pattern, methods: own } of this.entries.values()) {
      if (pattern.test(pathname)) for (const m of own) methods.add(m);
    }
    return [...methods].sort();
  }
}
