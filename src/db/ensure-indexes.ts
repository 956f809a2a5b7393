import mongoose from 'mongoose';

/**
 * Builds the indexes of every registered model and waits for them. Uniqueness rules (one e-mail per
 * member, one target set per member and year, one snapshot per import hash) live in unique indexes,
 * so nothing may write before they exist: start-up awaits this before seeding or listening.
 */
export async function ensureIndexes(): Promise<void> {
  await Promise.all(mongoose.modelNames().map((name) => mongoose.model(name).init()));
}
