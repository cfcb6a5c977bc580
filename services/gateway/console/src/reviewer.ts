/**
 * Who is reviewing: the one place the console learns the reviewer a review or a confirmation
 * names. Until the console signs staff in, the reviewer types their staff id once per tab and it
 * is kept in the tab's session storage (gone when the tab closes); a signed-in user replaces it.
 */
const KEY = 'console.reviewer';

/** The staff id recorded as the reviewer of what is done in this tab; '' when none is given yet. */
export function currentReviewer(): string {
  try {
    return (sessionStorage.getItem(KEY) ?? '').trim();
  } catch {
    return '';
  }
}

/** Keeps the staff id for this tab ('' forgets it). */
export function rememberReviewer(staffId: string): void {
  try {
    if (staffId.trim()) sessionStorage.setItem(KEY, staffId.trim());
    else sessionStorage.removeItem(KEY);
  } catch {
    // Storage refused (private mode, quota): the id lasts as long as the page.
  }
}
