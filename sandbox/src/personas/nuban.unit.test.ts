import { isValidNuban, makeNuban, nubanCheckDigit, nubanPrefix } from './nuban';

describe('NUBAN check digits', () => {
  it('when the reference example is computed (GTBank, serial 012345678), then the check digit is 5', () => {
    expect(nubanCheckDigit('058', '012345678')).toBe(5);
    expect(makeNuban('058', '012345678')).toBe('0123456785');
  });

  it('when a five-digit institution code is used, then the prefix is 9 followed by the code', () => {
    expect(nubanPrefix('50211')).toBe('950211');
  });

  it('when one digit of a valid number changes, then it no longer validates', () => {
    expect(isValidNuban('058', '0123456785')).toBe(true);
    expect(isValidNuban('058', '0123456784')).toBe(false);
    expect(isValidNuban('044', '0123456785')).toBe(false);
    expect(isValidNuban('058', '123456785')).toBe(false);
  });
});
