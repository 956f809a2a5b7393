import { Schema, model } from 'mongoose';

/** The answer a write with an Idempotency-Key got, kept to be replayed to its retries. */
export interface KeptWriteAnswer {
  status: number;
  contentType: string;
  /** The body as sent, deflated (zlib) when `deflated`. */
  body: Buffer;
  deflated: boolean;
}

/**
 * One Idempotency-Key of one caller (src/security/idempotency/): the request it was first used
 * for, whether that request is still running, and once it finished, its answer. Removed 24 h after
 * the key's first use (a TTL index on `expiresAt`); a key found past that counts as new anyway.
 * Not a versioned scope: nothing caches these records, and keeping them must not drop kept answers.
 */
export interface IdempotencyRecordDoc {
  /** sha256 of the caller's subject and the key (keys may be long; the index stays small). */
  _id: string;
  /** The caller's subject (a member id, or `admin-token`), for whoever reads the collection. */
  caller: string;
  /** sha256 of the method, the path with its query, and the body: what makes it the same request. */
  fingerprint: string;
  /** `POST /teams`, for messages. */
  request: string;
  state: 'running' | 'done';
  /** The attempt that holds a running record: a retry takes it over only from this attempt. */
  attempt: string;
  /** The gateway instance running it. */
  holder: string;
  /** A running record whose holder stopped renewing it (the instance went away) is taken over after this. */
  lockedUntil: Date;
  /** When the key was first used. */
  startedAt: Date;
  answer: KeptWriteAnswer | null;
  expiresAt: Date;
}

const idempotencyRecordSchema = new Schema<IdempotencyRecordDoc>(
  {
    _id: { type: String, required: true },
    caller: { type: String, required: true },
    fingerprint: { type: String, required: true },
    request: { type: String, required: true },
    state: { type: String, enum: ['running', 'done'], required: true },
    attempt: { type: String, required: true },
    holder: { type: String, required: true },
    lockedUntil: { type: Date, required: true },
    startedAt: { type: Date, required: true },
    answer: {
      type: new Schema<KeptWriteAnswer>(
        {
          status: { type: Number, required: true },
          contentType: { type: String, required: true },
          body: { type: Buffer, required: true },
          deflated: { type: Boolean, required: true },
        },
        { _id: false },
      ),
      default: null,
    },
    expiresAt: { type: Date, required: true },
  },
  { collection: 'idempotency_keys', versionKey: false },
);

// Keys go 24 h after their first use (MongoDB's TTL monitor, or the embedded store's, once a
// minute): the collection holds at most a day of keyed writes.
idempotencyRecordSchema.index({ expiresAt: 1 }, { expireAfterSeconds: 0 });

export const IdempotencyRecordModel = model<IdempotencyRecordDoc>(
  'IdempotencyRecord',
  idempotencyRecordSchema,
);
