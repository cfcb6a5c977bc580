import type { ApplicationStatus } from '@loan/contracts';
import { acceptsLinks, linksClosedBy } from './linksClosed';

const at = (status: ApplicationStatus, linkingLocked = false) => ({ status, linkingLocked });

describe('when an application stops taking accounts', () => {
  it.each([
    ['finalize-linking locks a linked application', at('LINKED'), at('LINKED', true), 'linking_finalized'],
    ['analysis completes', at('PROCESSING', true), at('COMPLETED', true), 'decided'],
    ['analysis fails', at('PROCESSING', true), at('FAILED', true), 'failed'],
    ['no account was linked in time', at('PENDING_LINKING'), at('ABANDONED'), 'abandoned'],
    ['analyze was never called', at('LINKED', true), at('ABANDONED', true), 'abandoned'],
  ] as const)('when %s, then its widget sessions close with that reason', (_what, before, after, reason) => {
    expect(linksClosedBy(before, after)).toBe(reason);
  });

  it.each([
    ['an account is linked', at('PENDING_LINKING'), at('LINKED')],
    ['analyze starts on a locked application', at('LINKED', true), at('PROCESSING', true)],
    ['a decided application is reviewed', at('COMPLETED', true), at('COMPLETED', true)],
    ['an abandoned application is resumed', at('ABANDONED'), at('PENDING_LINKING')],
  ] as const)('when %s, then nothing closes', (_what, before, after) => {
    expect(linksClosedBy(before, after)).toBeNull();
  });

  it('then an application takes links only before finalize-linking and outside the terminal statuses', () => {
    expect(acceptsLinks(at('PENDING_LINKING'))).toBe(true);
    expect(acceptsLinks(at('LINKED'))).toBe(true);
    expect(acceptsLinks(at('LINKED', true))).toBe(false);
    for (const status of ['PROCESSING', 'COMPLETED', 'FAILED', 'ABANDONED'] as const)
      expect(acceptsLinks(at(status))).toBe(false);
  });
});
