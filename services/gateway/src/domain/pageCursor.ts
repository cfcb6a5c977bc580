import { IsoTimestamp, Uuid } from '@loan/contracts';
import { z } from 'zod';

/** A place in a list ordered by a time and then an id: where the last page ended. */
export interface Position {
  at: string;
  id: string;
}

export const INVALID_CURSOR = 'cursor is not valid; use the nextCursor of a previous page';

/**
 * The opaque `nextCursor` of a list ordered by time and id, whose ids have the form `id`: the
 * position as JSON in base64url. `decode` answers null for any string that is not a cursor
 * the list would issue, so a caller answers it with a 400 and never queries with it.
 */
export function cursorCodec(id: z.ZodType<string>) {
  const schema = z.tuple([IsoTimestamp, id]);
  return {
    encode: (position: Position): string =>
      Buffer.from(JSON.stringify([position.at, position.id]), 'utf8').toString('base64url'),
    decode(cursor: string): Position | null {
      let raw: unknown;
      try {
        raw = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
      } catch {
        return null;
      }
      const parsed = schema.safeParse(raw);
      return parsed.success ? { at: parsed.data[0], id: parsed.data[1] } : null;
    },
  };
}

/** Where a page of applications ended: the last application's creation (or decision) time and id. */
export interface ListPosition {
  createdAt: string;
  applicationId: string;
}

const applications = cursorCodec(Uuid);

/** The opaque `nextCursor` a lender passes back for the next page of applications or reviews. */
export const encodeCursor = (at: ListPosition): string =>
  applications.encode({ at: at.createdAt, id: at.applicationId });

/** The position a cursor names, or null when it is not one we issued. */
export function decodeCursor(cursor: string): ListPosition | null {
  const position = applications.decode(cursor);
  return position ? { createdAt: position.at, applicationId: position.id } : null;
}
