/**
 * Who a review or a confirmation names as its reviewer. In the console a signed-in member of
 * staff is the reviewer, by their e-mail address (what the lender knows them by), and the body
 * need not name anyone; a body naming someone else is refused, since the console records only
 * the user who is signed in. With the API key (or a console signed in with it) the body names
 * the reviewer, the lender's own staff id, and must.
 */
export function reviewerOf(
  signedIn: string | null,
  given: string | undefined,
): { reviewer: string } | { problem: string } {
  if (signedIn === null) return given === undefined ? { problem: 'reviewer is required' } : { reviewer: given };
  if (given !== undefined && given.trim().toLowerCase() !== signedIn.trim().toLowerCase()) {
    return {
      problem: `reviewer: the console records the signed-in user (${signedIn}) as the reviewer; leave reviewer out or give your own e-mail address`,
    };
  }
  return { reviewer: signedIn };
}
