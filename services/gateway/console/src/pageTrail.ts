/** What the trails are kept in: the tab's sessionStorage, or anything with the same two calls. */
export type TrailStorage = Pick<Storage, 'getItem' | 'setItem'>;

const KEY = 'console.applications.pages';
/** Pages remembered per tab, the oldest forgotten first. */
const MAX_PAGES = 50;

/**
 * The cursors of the pages before each page of a list, kept for the tab: a page reached by
 * "Next page" still goes back after a reload or the browser's Back. A page is named by its
 * list (the filter) and its cursor; the first page (no cursor) has none before it. Storage
 * that fails (full, or refused) only forgets: the pager then starts again from the page shown.
 */
export function pageTrails(storage: TrailStorage | null) {
  const load = (): [string, (string | null)[]][] => {
    try {
      const parsed: unknown = JSON.parse(storage?.getItem(KEY) ?? '[]');
      return Array.isArray(parsed) ? (parsed as [string, (string | null)[]][]) : [];
    } catch {
      return [];
    }
  };
  const name = (list: string, cursor: string) => `${list}\u0000${cursor}`;
  return {
    before(list: string, cursor: string | null): (string | null)[] {
      if (cursor === null) return [];
      return load().find(([key]) => key === name(list, cursor))?.[1] ?? [];
    },
    remember(list: string, cursor: string | null, trail: (string | null)[]) {
      if (cursor === null) return;
      const kept = load().filter(([key]) => key !== name(list, cursor));
      kept.push([name(list, cursor), trail]);
      try {
        storage?.setItem(KEY, JSON.stringify(kept.slice(-MAX_PAGES)));
      } catch {
        // Forgotten: the pager starts again from this page.
      }
    },
  };
}
