/** Appends a key to a field path: `memberOf` + `team_id` → `memberOf.team_id`, `targets` + 3 → `targets[3]`. */
export function joinPath(parent: string, key: string | number): string {
  if (typeof key === 'number' || /^\d+$/.test(key)) return `${parent}[${key}]`;
  return parent === '' ? key : `${parent}.${key}`;
}
