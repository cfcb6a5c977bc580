import { persona } from '../__tests__/personas';
import { checkIdentity, holderNameMatches, nameTokens } from './identity';

const applicant = { firstName: 'Chinedu', lastName: 'Okafor' };

describe('nameTokens', () => {
  it('when a name has titles, accents, apostrophes and punctuation, then only the name words remain', () => {
    expect(nameTokens("Mrs. Adéọlá O'Neil-Bakare, Jr")).toEqual(['adeola', 'oneil', 'bakare', 'jr']);
  });
});

describe('holderNameMatches', () => {
  it.each([
    ['the same name', 'Chinedu Okafor'],
    ['upper case, surname first', 'OKAFOR CHINEDU'],
    ['a middle name', 'OKAFOR CHINEDU EMMANUEL'],
    ['a middle initial with a full stop', 'Chinedu E. Okafor'],
    ['a comma after the surname', 'OKAFOR, CHINEDU'],
    ['a title', 'MR CHINEDU OKAFOR'],
    ['extra spaces', '  chinedu   okafor '],
  ])('when the account holder is written with %s, then it matches', (_, holder) => {
    expect(holderNameMatches(applicant, holder)).toBe(true);
  });

  it.each([
    ['another person', 'MUSTAPHA BELLO'],
    ['the same surname only', 'OKAFOR NGOZI'],
    ['the first name only', 'CHINEDU'],
    ['an initial for the first name', 'OKAFOR C.'],
    ['an empty name', ''],
  ])('when the account holder is %s, then it does not match', (_, holder) => {
    expect(holderNameMatches(applicant, holder)).toBe(false);
  });

  it('when a compound first name is written as one word by the bank, then it matches', () => {
    expect(holderNameMatches({ firstName: 'Mary-Jane', lastName: 'Okon' }, 'OKON MARYJANE')).toBe(true);
  });

  it('when a double-barrelled surname is split by the bank, then it matches', () => {
    expect(holderNameMatches({ firstName: 'Funke', lastName: 'Adeyemi-Cole' }, 'FUNKE ADEYEMI COLE')).toBe(true);
  });
});

describe('checkIdentity', () => {
  const { applicant: chinedu, accounts } = persona('salaried');

  it('when every linked account is held by the applicant, then identity is verified', () => {
    expect(checkIdentity(chinedu, accounts)).toEqual({ verified: true, mismatches: [] });
  });

  it('when one of several accounts is held by someone else, then identity is not verified and that account is named', () => {
    const [first, second] = accounts;
    const foreign = { ...second!, holderName: 'IBRAHIM MUSA' };

    expect(checkIdentity(chinedu, [first!, foreign])).toEqual({
      verified: false,
      mismatches: [{ accountId: foreign.accountId, institution: 'Kuda MFB', reason: 'NAME' }],
    });
  });

  it('when the account reports a BVN ending in other digits than the applicant’s, then it is a BVN mismatch', () => {
    const [first] = accounts;
    const result = checkIdentity(chinedu, [{ ...first!, bvnLast4: '9999' }]);

    expect(result.verified).toBe(false);
    expect(result.mismatches[0]?.reason).toBe('BVN');
  });

  it('when the applicant gave no BVN, then the BVN on the account is not compared', () => {
    const [first] = accounts;

    expect(checkIdentity({ ...chinedu, bvn: null }, [{ ...first!, bvnLast4: '9999' }]).verified).toBe(true);
  });

  it('when there is no account, then identity is not verified', () => {
    expect(checkIdentity(chinedu, []).verified).toBe(false);
  });
});
