import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * File names of a data directory. Generation N is the pair snapshot-N + journal-N (generation 0
 * has no snapshot: the empty state). The current generation is the highest complete snapshot;
 * everything else (older pairs, a newer log without its snapshot, temp files) is a leftover of a
 * compaction and is removed on open.
 */
const SNAPSHOT = /^snapshot-(\d{10})\.bson$/;
const LOG = /^journal-(\d{10})\.log$/;

const pad = (generation: number): string => String(generation).padStart(10, '0');

export const snapshotName = (generation: number): string => `snapshot-${pad(generation)}.bson`;
export const logName = (generation: number): string => `journal-${pad(generation)}.log`;
export const tempName = (name: string): string => `${name}.tmp`;

export interface DirectoryListing {
  /** Generations that have a snapshot file, ascending. */
  snapshots: number[];
  /** Generations that have a log file, ascending. */
  logs: number[];
  /** Every other journal file (temp files), by name. */
  temps: string[];
}

export function listJournalFiles(dir: string): DirectoryListing {
  const listing: DirectoryListing = { snapshots: [], logs: [], temps: [] };
  for (const name of readdirSync(dir)) {
    const snapshot = SNAPSHOT.exec(name);
    const log = LOG.exec(name);
    if (snapshot) listing.snapshots.push(Number(snapshot[1]));
    else if (log) listing.logs.push(Number(log[1]));
    else if (
      name.endsWith('.tmp') &&
      (name.startsWith('snapshot-') || name.startsWith('journal-'))
    ) {
      listing.temps.push(name);
    }
  }
  listing.snapshots.sort((a, b) => a - b);
  listing.logs.sort((a, b) => a - b);
  return listing;
}

export const inDir = (dir: string, name: string): string => join(dir, name);
