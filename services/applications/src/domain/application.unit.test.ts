import { applicationIdFor } from './application';

describe('applicationIdFor', () => {
  it('names the same application for the same idempotency key, every time', () => {
    expect(applicationIdFor('app-2026-0001')).toBe(applicationIdFor('app-2026-0001'));
  });

  it('names different applications for different keys, even ones differing only in case', () => {
    const ids = new Set(['app-1', 'app-2', 'APP-1', 'app-1 '].map(applicationIdFor));
    expect(ids.size).toBe(4);
  });

  it('is a UUID, as the spec shows application ids', () => {
    expect(applicationIdFor('k')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
