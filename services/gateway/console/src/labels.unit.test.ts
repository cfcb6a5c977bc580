import {
  AbandonReason,
  ApplicationStatus,
  ConsentStatus,
  DecisionOutcome,
  DeliveryStatus,
  EnrichmentStatus,
  EventNames,
  LoanStatus,
  OutcomeReport,
  PerformanceReportView,
  ReviewOutcome,
  ScoreBand,
  Severity,
} from '@loan/contracts';
import { Reasons } from '../../../notifier/src/domain/delivery';
import { LABELS, labelOf, say, type LabelKind } from './labels';

describe('codes in words', () => {
  it.each<[LabelKind, readonly string[]]>([
    ['status', ApplicationStatus.options],
    ['enrichment', EnrichmentStatus.options],
    ['consent', ConsentStatus.options],
    ['decision', DecisionOutcome.options],
    ['decision', ReviewOutcome.options],
    ['band', ScoreBand.options],
    ['severity', Severity.options],
    ['delivery', DeliveryStatus.options],
    ['event', EventNames],
    ['abandonReason', AbandonReason.options],
    ['deliveryReason', Object.values(Reasons)],
    ['loanStatus', LoanStatus.options],
    ['outcome', OutcomeReport.options.map((o) => o.shape.type.value)],
    ['drift', PerformanceReportView.shape.drift.shape.measures.element.shape.flag.unwrap().options],
  ])('when the API sends any %s code, then the console has words for it that are not the code', (kind, codes) => {
    for (const code of codes) {
      expect(Object.keys(LABELS[kind])).toContain(code);
      expect(say(code, kind)).not.toBe(code);
      expect(say(code, kind)).not.toMatch(/_/);
    }
  });

  it('when the words are read, then they are plain', () => {
    expect(say('PENDING_LINKING', 'status')).toBe('Waiting for bank link');
    expect(say('LOW_RISK', 'band')).toBe('Low risk');
    expect(say('COUNTER_OFFER', 'decision')).toBe('Counter-offer');
    expect(say('READY', 'enrichment')).toBe('Statement read');
    expect(say('retries_exhausted', 'deliveryReason')).toBe('every retry failed');
  });

  it('when an application is declined or failed, then nothing about it is green; a completed one takes its tone from its decision', () => {
    expect(labelOf('DECLINED', 'decision').tone).toBe('bad');
    expect(labelOf('COMPLETED', 'status').tone).toBe('neutral');
    expect(labelOf('FAILED', 'status').tone).toBe('bad');
    expect(labelOf('APPROVED', 'decision').tone).toBe('good');
  });

  it('when severities are shown, then each has its own tone and its own words', () => {
    const severities = Severity.options.map((s) => labelOf(s, 'severity'));
    expect(new Set(severities.map((l) => l.tone)).size).toBe(severities.length);
    expect(new Set(severities.map((l) => l.text)).size).toBe(severities.length);
  });

  it('when a code means different things, then its kind picks the words; a code no table knows reads as its words', () => {
    expect(say('FAILED', 'enrichment')).toBe('Statement not read');
    expect(say('FAILED', 'delivery')).toBe('Failed');
    expect(say('PENDING', 'delivery')).toBe('Sending');
    expect(say('SOMETHING_NEW')).toBe('Something new');
    expect(labelOf('SOMETHING_NEW', 'status')).toEqual({ text: 'Something new', tone: 'neutral' });
  });
});
