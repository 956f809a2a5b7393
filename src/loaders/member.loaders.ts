/** Loaders of the members half of the graph (members, teams, targets). */
export function createMemberLoaders() {
  return {};
}
