import {
  activate,
  activeVersion,
  activeVersionAt,
  clearChallenger,
  emptyBook,
  setChallenger,
  statusOf,
  type PolicyBook,
} from './versions';

const at = (minute: number) => new Date(Date.UTC(2026, 10, 27, 9, minute));
const book = (): PolicyBook => ({ ...emptyBook('lender-a'), lastVersion: 3 });
const ok = (change: ReturnType<typeof activate>): PolicyBook => {
  if (!change.ok) throw new Error(change.message);
  return change.book;
};

describe('a lender\u2019s policy book', () => {
  it('when nothing was activated, then the built-in version 0 is active and the others are drafts', () => {
    expect(activeVersion(book())).toBe(0);
    expect(statusOf(book(), 0)).toBe('ACTIVE');
    expect(statusOf(book(), 2)).toBe('DRAFT');
  });

  it('when versions are activated in turn, then the last is active and the earlier ones retired', () => {
    const after = ok(activate(ok(activate(book(), 1, at(10), 'a')), 2, at(20), 'a'));
    expect(activeVersion(after)).toBe(2);
    expect([0, 1, 2, 3].map((v) => statusOf(after, v))).toEqual(['RETIRED', 'RETIRED', 'ACTIVE', 'DRAFT']);
  });

  it('when an analysis was asked for before an activation, then the version active then decides it', () => {
    const after = ok(activate(ok(activate(book(), 1, at(10), 'a')), 2, at(20), 'a'));
    expect(activeVersionAt(after, at(5))).toBe(0);
    expect(activeVersionAt(after, at(10))).toBe(1);
    expect(activeVersionAt(after, at(19))).toBe(1);
    expect(activeVersionAt(after, at(30))).toBe(2);
  });

  it('when a retired or unknown version is activated, then it is refused with INVALID or NOT_FOUND', () => {
    const after = ok(activate(book(), 1, at(10), 'a'));
    expect(activate(after, 0, at(11), 'a')).toMatchObject({ ok: false, code: 'INVALID' });
    expect(activate(after, 4, at(11), 'a')).toMatchObject({ ok: false, code: 'NOT_FOUND' });
    expect(activate(after, 1, at(11), 'a')).toEqual({ ok: true, book: after });
  });

  it('when the challenger is activated, then it is no longer the challenger; only a draft can be one', () => {
    const challenged = ok(setChallenger(book(), 2, at(10), 'a'));
    expect(challenged.challenger).toEqual({ version: 2, since: at(10), actor: 'a' });
    expect(setChallenger(challenged, 0, at(11), 'a')).toMatchObject({ ok: false, code: 'INVALID' });
    expect(ok(activate(challenged, 2, at(12), 'a')).challenger).toBeNull();
    expect(ok(clearChallenger(challenged)).challenger).toBeNull();
    expect(clearChallenger(book())).toMatchObject({ ok: false, code: 'NOT_FOUND' });
  });
});
