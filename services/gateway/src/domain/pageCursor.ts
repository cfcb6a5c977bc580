import { IsoTimestamp, Uuid } from '@loan/contracts';
import { z } from 'zod';

/** Where a page of applications ended: the last application's creation time and id. */
export interface ListPosition {
  createdAt: string;
  applicationId: string;
}

const Position = z.tuple([IsoTimestamp, Uuid]);

export const INVALID_CURSOR = 'cursor is not valid; use the nextCursor of a previous page';

/** The opaque `nextCursor` a lender passes back for the next page. */
export const encodeCursor = (at: ListPosition): string =>
  Buffer.from(JSON.stringify([at.createdAt, at.applicationId]), 'utf8').toString('base64url');

/** The position a cursor names, or null when it is not one we issued. */
export function decodeCursor(cursor: string): ListPosition | null {
  let raw: unknown;
  try {
    raw = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  const parsed = Position.safeParse(raw);
  return parsed.success ? { createdAt: parsed.data[0], applicationId: parsed.data[1] } : null;
}
