import { classifyCredit, classifyDebit, counterpartyOf, isOwnTransfer, reversedDebit, sameName } from './narrations';

const credit = (narration: string, category: string | null = null) => ({
  narration,
  type: 'credit' as const,
  amount: 100_000,
  category,
});
const debit = (narration: string, category: string | null = null) => ({
  narration,
  type: 'debit' as const,
  amount: 100_000,
  category,
});
const HOLDER = 'ADAEZE OKAFOR';

describe('narrations', () => {
  it.each([
    ['CHIDI OKAFOR', 'OKAFOR CHIDI', true],
    ['CHIDI OKAFOR', 'Chidi  Okafor', true],
    ['CHIDI EMEKA OKAFOR', 'CHIDI OKAFOR', true],
    ['CHIDI OKAFOR', 'NGOZI OKAFOR', false],
    ['CHIDI OKAFOR', 'DANGOTE CEMENT PLC', false],
    ['CHIDI OKAFOR', '', false],
  ])('when %s is compared with %s, then same person is %s', (a, b, same) => {
    expect(sameName(a, b)).toBe(same);
  });

  it('when a transfer names its other party, then it is read from each bank format', () => {
    expect(counterpartyOf(credit('NIP/GTB/TUNDE BELLO/rent balance'))).toBe('TUNDE BELLO');
    expect(counterpartyOf(debit('NIP CR/TUNDE BELLO/ZENITH'))).toBe('TUNDE BELLO');
    expect(counterpartyOf(debit('TRF FRM ADAEZE OKAFOR TO TUNDE BELLO|upkeep'))).toBe('TUNDE BELLO');
    expect(counterpartyOf(credit('TRF FRM TUNDE BELLO TO ADAEZE OKAFOR|refund'))).toBe('TUNDE BELLO');
    expect(counterpartyOf(credit('TRANSFER FROM TUNDE BELLO'))).toBe('TUNDE BELLO');
    expect(counterpartyOf(debit('MC Loc POS Prch-123456789012--SHOPRITE LEKKI LA NG'))).toBeNull();
  });

  it('when money moves between accounts of the holder, then it is an own transfer; a cash deposit by the holder is not', () => {
    expect(isOwnTransfer(debit('TRF FRM ADAEZE OKAFOR TO ADAEZE OKAFOR|savings'), HOLDER)).toBe(true);
    expect(isOwnTransfer(credit('NIP/KUDA/OKAFOR ADAEZE/top up'), HOLDER)).toBe(true);
    expect(isOwnTransfer(debit('NIP CR/ADAEZE N OKAFOR/OPAY'), HOLDER)).toBe(true);
    expect(isOwnTransfer(debit('TRF FRM ADAEZE OKAFOR TO TUNDE BELLO|upkeep'), HOLDER)).toBe(false);
    expect(isOwnTransfer(credit('CASH DEPOSIT/BY ADAEZE OKAFOR'), HOLDER)).toBe(false);
  });

  it.each([
    ['NIP/ZENITH/DANGOTE CEMENT PLC/SALARY JAN 2026', 'salary'],
    ['NESTLE NIGERIA PLC SALARY FOR FEB 2026', 'salary'],
    ['SAL/MAR26/LAGOS STATE GOVT', 'salary'],
    ['NIP/CARBON/CARBON/LOAN DISB CA12345678', 'loan_disbursement'],
    ['NIP/PALMPAY/PALMCREDIT/LOAN DISB PA12345678', 'loan_disbursement'],
    ['NIP/PALMPAY/TUNDE BELLO/gift', 'other'],
    ['NIP/PROVIDUS/BET9JA/WITHDRAWAL 123456789', 'betting'],
    ['REV-DD/CARBON/LOAN REPAYMENT/CA12345678 INSUFFICIENT FUNDS', 'reversal'],
    ['POS SETTLEMENT/20123456/123456', 'other'],
  ])('when the credit reads %s, then it is %s', (narration, kind) => {
    expect(classifyCredit(credit(narration), HOLDER)).toBe(kind);
  });

  it.each([
    ['MC Loc Web Prch-123456789012--SPORTYBET NIGERIA DEPOSIT', 'betting'],
    ['NIP CR/BETKING/PAYSTACK-TITAN', 'betting'],
    ['DD/FAIRMONEY/LOAN REPAYMENT/FA12345678', 'loan_repayment'],
    ['NIP CR/BRANCH LOAN REPAYMENT/BRANCH', 'loan_repayment'],
    ['NIP CR/EASEMONI LOAN REPAYMENT/PROVIDUS', 'loan_repayment'],
    ['DD RETURNED - INSUFF FUNDS/RENMONEY/RE12345678', 'returned'],
    ['ATM WDL 12345678 GTB BRANCH MARINA', 'other'],
    ['NIP Charge + VAT', 'other'],
  ])('when the debit reads %s, then it is %s', (narration, kind) => {
    expect(classifyDebit(debit(narration), HOLDER)).toBe(kind);
  });

  it('when a provider category is given, then it decides what the narration does not say', () => {
    expect(classifyDebit(debit('WEB PYMT 778899', 'betting_deposit'), HOLDER)).toBe('betting');
    expect(classifyCredit(credit('NIP/GTB/XYZ/payout', 'betting_payout'), HOLDER)).toBe('betting');
    expect(classifyCredit(credit('RVSL 12345', 'reversal'), HOLDER)).toBe('reversal');
  });

  it('when a reversal gives back a debit, then the debit it undoes is read from its narration', () => {
    expect(reversedDebit('REV-DD/CARBON/LOAN REPAYMENT/CA12345678 INSUFFICIENT FUNDS')).toBe('loan_repayment');
    expect(reversedDebit('REV-MC Loc Web Prch-1--BET9JA DEPOSIT')).toBe('betting');
    expect(reversedDebit('REFUND FROM JUMIA')).toBeNull();
  });
});
