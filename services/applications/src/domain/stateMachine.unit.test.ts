import { ApplicationStatus } from '@loan/contracts';
import { KEY_IN_USE_STATUSES, TERMINAL_STATUSES, TRANSITIONS, transition, type Trigger } from './stateMachine';

const TRIGGERS: Trigger[] = [
  'resume',
  'link_account',
  'finalize_linking',
  'analyze',
  'analysis_completed',
  'analysis_failed',
  'cleanup_no_link',
  'cleanup_no_analyze',
  'relink',
];

/** Section 3 of the spec, written out as (from, trigger) -> to; everything else is refused. */
const EXPECTED: Record<string, string> = {
  'PENDING_LINKING/resume': 'PENDING_LINKING',
  'ABANDONED/resume': 'PENDING_LINKING',
  'PENDING_LINKING/link_account': 'LINKED',
  'LINKED/link_account': 'LINKED',
  'LINKED/finalize_linking': 'LINKED',
  'LINKED/analyze': 'PROCESSING',
  'PROCESSING/analysis_completed': 'COMPLETED',
  'PROCESSING/analysis_failed': 'FAILED',
  'PENDING_LINKING/cleanup_no_link': 'ABANDONED',
  'LINKED/cleanup_no_analyze': 'ABANDONED',
  'PENDING_LINKING/relink': 'PENDING_LINKING',
  'LINKED/relink': 'LINKED',
};

describe('application state machine', () => {
  const cases = ApplicationStatus.options.flatMap((from) => TRIGGERS.map((trigger) => [from, trigger] as const));

  it.each(cases)('when %s receives %s, then it goes where section 3 says (or is refused)', (from, trigger) => {
    expect(transition(from, trigger)).toBe(EXPECTED[`${from}/${trigger}`] ?? null);
  });

  it('when the table is read, then it has an entry for every status', () => {
    expect(Object.keys(TRANSITIONS).sort()).toEqual([...ApplicationStatus.options].sort());
  });

  it('when a status is terminal for re-linking, then nothing but a resume of ABANDONED leaves it', () => {
    expect([...TERMINAL_STATUSES].sort()).toEqual(['ABANDONED', 'COMPLETED', 'FAILED']);
    for (const status of TERMINAL_STATUSES) {
      const exits = TRIGGERS.filter((t) => transition(status, t) !== null);
      expect(exits).toEqual(status === 'ABANDONED' ? ['resume'] : []);
    }
  });

  it('when initiate reuses a key, then LINKED, PROCESSING, COMPLETED and FAILED are the conflicting statuses', () => {
    expect([...KEY_IN_USE_STATUSES].sort()).toEqual(['COMPLETED', 'FAILED', 'LINKED', 'PROCESSING']);
  });
});
