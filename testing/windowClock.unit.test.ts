import { windowOf } from '../services/gateway/src/domain/rateLimit';
import { windowClock } from './helpers';

describe('the window clock of the rate-limit tests', () => {
  it('when it is created or moved, then it reads as the start of a window and runs on in that window', async () => {
    const windowMs = 60_000;
    const clock = windowClock(windowMs);
    const start = clock.now().getTime();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const later = clock.now();
    expect(later.getTime()).toBeGreaterThan(start);
    expect(windowOf(later, windowMs).start).toBe(windowOf(new Date(start), windowMs).start);
    expect(later.getTime() - windowOf(later, windowMs).start).toBeLessThan(windowMs / 2);
    clock.toWindowStart();
    const moved = clock.now();
    expect(windowOf(moved, windowMs).start).toBe(windowOf(later, windowMs).start + windowMs);
    expect(moved.getTime() - windowOf(moved, windowMs).start).toBeLessThan(windowMs / 2);
  });
});
