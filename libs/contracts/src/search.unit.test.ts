import { applicantSearchTerms, localPhone, nameWords, searchTextTerms } from './search';

describe('finding an applicant by who they are', () => {
  const adaeze = {
    firstName: 'Adaézè',
    lastName: "Nwosu-O'Neil",
    email: ' Adaeze.Nwosu@Example.ng ',
    phone: '+234 803 123 4567',
    bvn: '22212345678',
  };

  it('when an applicant is indexed, then each word of either name, the e-mail in lower case, the phone as 11 local digits and the BVN are its terms', () => {
    expect(applicantSearchTerms(adaeze).sort()).toEqual(
      [
        'bvn:22212345678',
        'email:adaeze.nwosu@example.ng',
        'name:adaeze',
        'name:nwosu',
        'name:oneil',
        'phone:08031234567',
      ].sort(),
    );
    expect(
      applicantSearchTerms({ ...adaeze, phone: null, bvn: null }).some(
        (t) => t.startsWith('phone:') || t.startsWith('bvn:'),
      ),
    ).toBe(false);
  });

  it.each([
    ['adaeze', [['name:adaeze']]],
    ['NWOSU   Adaeze', [['name:nwosu'], ['name:adaeze']]],
    ['ADAEZE.NWOSU@example.ng', [['email:adaeze.nwosu@example.ng']]],
    ['0803 123 4567', [['bvn:08031234567', 'phone:08031234567']]],
    ['+2348031234567', [['phone:08031234567']]],
    ['22212345678', [['bvn:22212345678']]],
  ])('when a lender searches for %j, then it asks for the terms %j', (text, terms) => {
    expect(searchTextTerms(text)).toEqual(terms);
  });

  it('when the text searched for finds the applicant, then every term it asks for is one of theirs', () => {
    const theirs = new Set(applicantSearchTerms(adaeze));
    for (const text of [
      'Adaeze',
      "nwosu-o'neil adaeze",
      'adaeze.nwosu@example.ng',
      '08031234567',
      '234 803 123 4567',
      '22212345678',
    ]) {
      expect({
        text,
        found: searchTextTerms(text)!.every((alternatives) => alternatives.some((t) => theirs.has(t))),
      }).toEqual({ text, found: true });
    }
    expect(searchTextTerms('Chinedu')!.every((alternatives) => alternatives.some((t) => theirs.has(t)))).toBe(false);
  });

  it('when the text holds nothing to search by, then there are no terms', () => {
    expect(searchTextTerms('  ')).toBeNull();
    expect(searchTextTerms('!!!')).toBeNull();
    expect(searchTextTerms('0042')).toBeNull();
  });

  it('when names and numbers are normalised, then accents, case and apostrophes go and phone forms agree', () => {
    expect(nameWords("Ọláolúwa D'Souza")).toEqual(['olaoluwa', 'dsouza']);
    expect(['08031234567', '+234 803 123 4567', '2348031234567', '803-123-4567'].map(localPhone)).toEqual(
      Array(4).fill('08031234567'),
    );
    expect(localPhone('12345')).toBeNull();
  });
});
