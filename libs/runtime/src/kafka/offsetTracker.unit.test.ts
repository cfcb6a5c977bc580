import { createOffsetTracker, type OffsetTracker } from './offsetTracker';

/** What the consumer commits now (as its interval's commit does), by partition. */
function commit(tracker: OffsetTracker): Record<string, string> {
  const batch = tracker.pending();
  tracker.committed(batch);
  return Object.fromEntries(batch.map((p) => [`${p.topic}:${p.partition}`, p.offset]));
}

describe('offset tracker', () => {
  it('when messages are handled in order, then the commit is the offset after the last one, once', () => {
    const tracker = createOffsetTracker();
    tracker.handled('t', 0, '0');
    tracker.handled('t', 0, '1');
    tracker.handled('t', 0, '2');
    expect(commit(tracker)).toEqual({ 't:0': '3' });
    expect(commit(tracker)).toEqual({});
  });

  it('when nothing was handled, then there is nothing to commit', () => {
    expect(commit(createOffsetTracker())).toEqual({});
  });

  it('when partitions of several topics are handled, then each is committed at its own position', () => {
    const tracker = createOffsetTracker();
    tracker.handled('a', 0, '4');
    tracker.handled('a', 1, '9');
    tracker.handled('b', 0, '0');
    expect(commit(tracker)).toEqual({ 'a:0': '5', 'a:1': '10', 'b:0': '1' });
  });

  it('when offsets are past 2^53, then they are committed exactly', () => {
    const tracker = createOffsetTracker();
    tracker.handled('t', 0, '9007199254740993');
    expect(commit(tracker)).toEqual({ 't:0': '9007199254740994' });
  });

  it('when a handled message holds its offset, then the commit stays at it while later messages are handled', () => {
    const tracker = createOffsetTracker();
    tracker.handled('t', 0, '0');
    const release = tracker.handled('t', 0, '1', true);
    tracker.handled('t', 0, '2');
    tracker.handled('t', 0, '3');
    expect(commit(tracker)).toEqual({ 't:0': '1' });

    release!();
    expect(commit(tracker)).toEqual({ 't:0': '4' });
  });

  it('when a message holds its offset, then the other partitions are committed as they go', () => {
    const tracker = createOffsetTracker();
    tracker.handled('t', 0, '5', true);
    tracker.handled('t', 1, '7');
    expect(commit(tracker)).toEqual({ 't:0': '5', 't:1': '8' });
  });

  it('when a later hold is released before an earlier one, then the commit waits at the earlier one, and both releases move it past both', () => {
    const tracker = createOffsetTracker();
    const first = tracker.handled('t', 0, '10', true);
    const second = tracker.handled('t', 0, '11', true);
    tracker.handled('t', 0, '12');
    expect(commit(tracker)).toEqual({ 't:0': '10' });

    second!();
    expect(commit(tracker)).toEqual({ 't:0': '10' });

    first!();
    expect(commit(tracker)).toEqual({ 't:0': '13' });
  });

  it('when the earlier of two holds is released, then the commit moves up to the later one', () => {
    const tracker = createOffsetTracker();
    const first = tracker.handled('t', 0, '10', true);
    tracker.handled('t', 0, '11');
    const third = tracker.handled('t', 0, '12', true);
    first!();
    expect(commit(tracker)).toEqual({ 't:0': '12' });
    third!();
    expect(commit(tracker)).toEqual({ 't:0': '13' });
  });

  it('when a hold is released, then messages handled after it on its partition go back to being committed as they come', () => {
    const tracker = createOffsetTracker();
    tracker.handled('t', 0, '0', true)!();
    expect(commit(tracker)).toEqual({ 't:0': '1' });
    tracker.handled('t', 0, '1');
    expect(commit(tracker)).toEqual({ 't:0': '2' });
  });

  it('when a release comes twice, then the second changes nothing', () => {
    const tracker = createOffsetTracker();
    const release = tracker.handled('t', 0, '0', true)!;
    release();
    expect(commit(tracker)).toEqual({ 't:0': '1' });
    release();
    expect(commit(tracker)).toEqual({});
  });

  it('when a message does not hold its offset, then no release is handed back', () => {
    expect(createOffsetTracker().handled('t', 0, '0')).toBeUndefined();
  });

  it('when a partition is revoked, then what was recorded for it is not committed, and the others are', () => {
    const tracker = createOffsetTracker();
    tracker.handled('t', 0, '3');
    tracker.handled('t', 1, '8');
    tracker.handled('u', 0, '1');
    tracker.assigned({ t: [1] });
    expect(commit(tracker)).toEqual({ 't:1': '9' });
  });

  it('when a partition holding an offset is revoked, then a release that comes afterwards commits nothing for it', () => {
    const tracker = createOffsetTracker();
    const release = tracker.handled('t', 0, '3', true);
    tracker.handled('t', 0, '4');
    tracker.assigned({ t: [1] });
    expect(commit(tracker)).toEqual({});

    release!();
    expect(commit(tracker)).toEqual({});
  });

  it('when a revoked partition comes back, then it starts afresh: an old hold released later does not move it', () => {
    const tracker = createOffsetTracker();
    const old = tracker.handled('t', 0, '3', true);
    tracker.assigned({});
    tracker.assigned({ t: [0] });
    // The new owner's messages: fetched again from the last commit.
    const again = tracker.handled('t', 0, '3', true);
    tracker.handled('t', 0, '4');
    old!();
    expect(commit(tracker)).toEqual({ 't:0': '3' });
    again!();
    expect(commit(tracker)).toEqual({ 't:0': '5' });
  });

  it('when a partition stays assigned through a rebalance, then its hold and position are kept', () => {
    const tracker = createOffsetTracker();
    const release = tracker.handled('t', 0, '3', true);
    tracker.handled('t', 0, '4');
    tracker.assigned({ t: [0, 1] });
    expect(commit(tracker)).toEqual({ 't:0': '3' });
    release!();
    expect(commit(tracker)).toEqual({ 't:0': '5' });
  });

  it('when a partition moves on while a commit is under way, then its newer position is committed next time', () => {
    const tracker = createOffsetTracker();
    tracker.handled('t', 0, '0');
    tracker.handled('t', 1, '0');
    const inFlight = tracker.pending();
    tracker.handled('t', 0, '1');
    tracker.committed(inFlight);
    expect(commit(tracker)).toEqual({ 't:0': '2' });
  });

  it('when a commit fails (never marked committed), then the same positions are committed next time', () => {
    const tracker = createOffsetTracker();
    tracker.handled('t', 0, '6');
    expect(tracker.pending()).toEqual([{ topic: 't', partition: 0, offset: '7' }]);
    expect(commit(tracker)).toEqual({ 't:0': '7' });
  });

  it('when topic names contain colons, then their partitions are kept apart', () => {
    const tracker = createOffsetTracker();
    tracker.handled('ns:t', 0, '1');
    tracker.handled('ns', 0, '2');
    tracker.assigned({ 'ns:t': [0] });
    expect(commit(tracker)).toEqual({ 'ns:t:0': '2' });
  });
  it('when a keyed batch stops at a held message, then rewinding forgets it and what followed, and the batch fetched again is recorded anew', () => {
    const tracker = createOffsetTracker();
    const first = tracker.handled('t', 0, '0', true);
    const failed = tracker.handled('t', 0, '1', true);
    const later = tracker.handled('t', 0, '2', true);
    first!();
    later!();
    tracker.rewind('t', 0, '1');
    expect(commit(tracker)).toEqual({ 't:0': '1' });

    // The failed run's release never comes; the messages fetched again are held anew.
    void failed;
    const again = tracker.handled('t', 0, '1', true);
    const laterAgain = tracker.handled('t', 0, '2', true);
    laterAgain!();
    expect(commit(tracker)).toEqual({ 't:0': '1' });
    again!();
    expect(commit(tracker)).toEqual({ 't:0': '3' });
  });

  it('when a release of a forgotten message comes late, then it does not move the position', () => {
    const tracker = createOffsetTracker();
    const held = tracker.handled('t', 0, '5', true);
    tracker.rewind('t', 0, '5');
    const again = tracker.handled('t', 0, '5', true);
    held!();
    expect(commit(tracker)).toEqual({ 't:0': '5' });
    again!();
    expect(commit(tracker)).toEqual({ 't:0': '6' });
  });

  it('when a partition was taken away, then rewinding it records nothing to commit', () => {
    const tracker = createOffsetTracker();
    tracker.handled('t', 0, '3', true);
    tracker.assigned({ t: [1] });
    tracker.rewind('t', 0, '3');
    expect(commit(tracker)).toEqual({});
  });
});
