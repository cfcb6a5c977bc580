import { reviewerOf } from './reviewer';

describe('the reviewer a review names', () => {
  it('when a staff user is signed in, then the review names the user, whether the body leaves reviewer out or gives their own address in any case', () => {
    expect(reviewerOf('ada@lender.example', undefined)).toEqual({ reviewer: 'ada@lender.example' });
    expect(reviewerOf('ada@lender.example', ' ADA@lender.example ')).toEqual({ reviewer: 'ada@lender.example' });
  });

  it('when a signed-in user names someone else, then it is a problem saying the console records the signed-in user', () => {
    expect(reviewerOf('ada@lender.example', 'officer-1')).toEqual({
      problem: expect.stringMatching(/^reviewer: the console records the signed-in user \(ada@lender\.example\)/),
    });
  });

  it('when no staff user is signed in (the API key), then the body names the reviewer and must', () => {
    expect(reviewerOf(null, 'officer-1')).toEqual({ reviewer: 'officer-1' });
    expect(reviewerOf(null, undefined)).toEqual({ problem: 'reviewer is required' });
  });
});
