import { z } from 'zod';
import { cursorCodec, decodeCursor, encodeCursor } from './pageCursor';

describe('page cursors of the application list', () => {
  it('when a cursor is issued, then it names the same position when it comes back', () => {
    const at = { createdAt: '2026-11-20T09:00:00.123Z', applicationId: '4f1c2b8e-7a3d-5c5e-9b61-2d8f0e6a7c13' };
    const cursor = encodeCursor(at);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor)).toEqual(at);
  });

  it.each([
    ['not base64 JSON', 'not-a-cursor'],
    ['JSON of another shape', Buffer.from('{"a":1}').toString('base64url')],
    [
      'a time that is not one',
      Buffer.from('["yesterday","4f1c2b8e-7a3d-5c5e-9b61-2d8f0e6a7c13"]').toString('base64url'),
    ],
    ['an id that is not a UUID', Buffer.from('["2026-11-20T09:00:00.123Z","x"]').toString('base64url')],
    ['empty', ''],
  ])('when a cursor is %s, then it names no position', (_what, cursor) => {
    expect(decodeCursor(cursor)).toBeNull();
  });
});

describe('page cursors of a list with ids of its own form', () => {
  const codec = cursorCodec(z.string().regex(/^[0-9a-f-]{1,64}$/));

  it('when a cursor is issued, then it names the same position when it comes back, and an application cursor is one of its form', () => {
    const position = { at: '2026-11-20T09:00:00.123Z', id: '019ab3c4d5e6-00000001-a1b2c3d4e5f6' };
    expect(codec.decode(codec.encode(position))).toEqual(position);
    expect(
      codec.decode(encodeCursor({ createdAt: position.at, applicationId: '4f1c2b8e-7a3d-5c5e-9b61-2d8f0e6a7c13' })),
    ).not.toBeNull();
  });

  it('when its id is not of the form, then it names no position', () => {
    expect(codec.decode(codec.encode({ at: '2026-11-20T09:00:00.123Z', id: 'NOT HEX' }))).toBeNull();
  });
});
