import type { CrmImportResult } from '../services/import.service';

/** A skip reason with its specific values (quoted ids, amounts) blanked, to group alike items. */
export function reasonCategory(reason: string): string {
  return reason.replace(/"[^"]*"/g, '"…"');
}

/** What an import that replaced the demo company says first (REST, GraphQL and CLI alike). */
export const DEMO_REMOVED_NOTE =
  'The demo company was removed to make room for your data: its members, teams, targets, forecast calls, settings and snapshots';

/**
 * What a currency change would bring in, when deals were skipped for their currency: the count of
 * the currency with most such deals, and how to count them. Null when none was.
 */
export function currencyNote(result: Pick<CrmImportResult, 'skippedForCurrency'>): string | null {
  const top = result.skippedForCurrency[0];
  if (top === undefined) return null;
  return `${top.deals} ${top.deals === 1 ? 'deal' : 'deals'} in ${top.currency} ${top.deals === 1 ? 'was' : 'were'} skipped for their currency: set the account's currency to ${top.currency} (POST /settings/currencies {"currency": "${top.currency}"}) and import again to count them`;
}

/** An import's (or a sync's) answer message, with the demo's removal before and the currency note after. */
export function withImportNotes(
  message: string,
  result: Pick<CrmImportResult, 'demoRemoved' | 'skippedForCurrency'>,
): string {
  const currency = currencyNote(result);
  return `${result.demoRemoved ? `${DEMO_REMOVED_NOTE}. ` : ''}${message}${currency === null ? '' : `. ${currency}`}`;
}

/** Human summary of an import, for the CLI: counts, skipped grouped by reason, the snapshot id. */
export function formatImportSummary(result: CrmImportResult): string {
  const c = result.counts;
  const lines = [
    ...(result.demoRemoved ? [`${DEMO_REMOVED_NOTE}.`] : []),
    result.reused
      ? 'This data was already imported: nothing was written, its snapshot is answered.'
      : 'Import committed.',
    `  snapshot     ${result.snapshotId} (${result.snapshotAt.toISOString()})`,
  ];
  if (result.snapshotIds.length > 1)
    lines.push(`  backfilled   ${result.snapshotIds.length - 1} snapshots at past period ends`);
  if (result.mode === 'incremental')
    lines.push(
      `  changes      ${result.changes.updated} deals added or changed, ${result.changes.removed} removed`,
    );
  lines.push(
    `  pipelines    ${c.pipelines} (${c.stages} stages)`,
    `  deals        ${c.deals}`,
    `  owners       ${c.owners} (${c.membersCreated} new members, ${c.teams} teams)`,
  );
  const currency = currencyNote(result);
  if (currency !== null) lines.push(`  currency     ${currency}`);
  if (result.skipped.length === 0) {
    lines.push('  skipped      none');
    return lines.join('\n');
  }
  const groups = new Map<string, string[]>();
  for (const item of result.skipped) {
    const key = reasonCategory(item.reason);
    groups.set(key, [...(groups.get(key) ?? []), item.id]);
  }
  lines.push(`  skipped      ${result.skipped.length}, by reason:`);
  for (const [reason, ids] of [...groups].sort((a, b) => b[1].length - a[1].length)) {
    const shown =
      ids.slice(0, 5).join(', ') + (ids.length > 5 ? `, … (${ids.length - 5} more)` : '');
    lines.push(`    ${String(ids.length).padStart(6)}  ${reason}  [${shown}]`);
  }
  return lines.join('\n');
}
