/**
 * Who is reviewing in a console signed in with the API key (an owner who has no account yet):
 * the reviewer types their staff id once per tab and it is kept in the tab's session storage
 * (gone when the tab closes). A signed-in staff user is the reviewer instead, recorded by the
 * gateway from the session.
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
