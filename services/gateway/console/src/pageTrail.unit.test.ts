import { pageTrails, type TrailStorage } from './pageTrail';

const memory = (): TrailStorage & { data: Map<string, string> } => {
  const data = new Map<string, string>();
  return { data, getItem: (k) => data.get(k) ?? null, setItem: (k, v) => void data.set(k, v) };
};

describe('the pages before a page of the applications list', () => {
  it('when page 3 was reached by Next page, then after a reload (a new reader of the same storage) it still knows pages 1 and 2', () => {
    const storage = memory();
    const list = '{"status":["COMPLETED"]}';
    pageTrails(storage).remember(list, 'c2', [null]);
    pageTrails(storage).remember(list, 'c3', [null, 'c2']);
    const reloaded = pageTrails(storage);
    expect(reloaded.before(list, 'c3')).toEqual([null, 'c2']);
    expect(reloaded.before(list, 'c2')).toEqual([null]);
    expect(reloaded.before(list, null)).toEqual([]);
  });

  it('when the same cursor belongs to another filter, or nothing was kept, then it has no pages before it', () => {
    const storage = memory();
    pageTrails(storage).remember('{"q":"bisi"}', 'c2', [null]);
    expect(pageTrails(storage).before('{"q":"ada"}', 'c2')).toEqual([]);
    expect(pageTrails(memory()).before('{}', 'c9')).toEqual([]);
  });

  it('when storage holds something else, refuses writes or is missing, then the pager only forgets', () => {
    const broken = memory();
    broken.data.set('console.applications.pages', '{not json');
    expect(pageTrails(broken).before('{}', 'c2')).toEqual([]);
    const full: TrailStorage = {
      getItem: () => null,
      setItem: () => {
        throw new Error('QuotaExceededError');
      },
    };
    expect(() => pageTrails(full).remember('{}', 'c2', [null])).not.toThrow();
    expect(pageTrails(null).before('{}', 'c2')).toEqual([]);
  });

  it('when many pages were visited, then only the latest 50 are kept', () => {
    const storage = memory();
    const trails = pageTrails(storage);
    for (let i = 0; i < 60; i++) trails.remember('{}', `c${i}`, [null]);
    expect(trails.before('{}', 'c5')).toEqual([]);
    expect(trails.before('{}', 'c59')).toEqual([null]);
    expect((JSON.parse(storage.data.get('console.applications.pages')!) as unknown[]).length).toBe(50);
  });
});
