/** Amounts are in kobo (1 Naira = 100 kobo) everywhere in the provider's API. */
export type Kobo = number;

export type TransactionType = 'debit' | 'credit';

/**
 * Transaction categories the sandbox assigns. The provider names some of them in its docs
 * (`bank_charges`, `transfer`, `betting_deposit`, `betting_payout`, `cash_withdrawal`, `food`,
 * `education`, `unknown`); the rest are the sandbox's choice.
 */
export type TransactionCategory =
  | 'salary'
  | 'income'
  | 'transfer'
  | 'bank_charges'
  | 'betting_deposit'
  | 'betting_payout'
  | 'loan_disbursement'
  | 'loan_repayment'
  | 'cash_withdrawal'
  | 'cash_deposit'
  | 'food'
  | 'shopping'
  | 'transport'
  | 'airtime_and_data'
  | 'bills_and_utilities'
  | 'entertainment'
  | 'health'
  | 'education'
  | 'reversal'
  | 'unknown';

/** One statement line, as `GET /v2/accounts/:id/transactions` lists it. */
export interface MonoTransaction {
  id: string;
  narration: string;
  /** Always positive; the direction is `type`. */
  amount: Kobo;
  type: TransactionType;
  /** Running balance after this line; negative while overdrawn. */
  balance: Kobo;
  /** ISO-8601 timestamp. */
  date: string;
  category: TransactionCategory;
}

/** `SAVINGS_ACCOUNT` for most retail customers, `CURRENT_ACCOUNT` for salary earners with a cheque book. */
export type MonoAccountType = 'SAVINGS_ACCOUNT' | 'CURRENT_ACCOUNT' | 'WALLET_ACCOUNT';

/** The institution block of an account (REST shape, snake_case). */
export interface MonoInstitution {
  name: string;
  bank_code: string;
  type: 'PERSONAL_BANKING' | 'BUSINESS_BANKING';
}

/** `data.account` of `GET /v2/accounts/:id`. */
export interface MonoAccount {
  id: string;
  /** The account holder's name as the bank has it. */
  name: string;
  currency: 'NGN';
  type: MonoAccountType;
  account_number: string;
  balance: Kobo;
  /** Last four digits of the holder's BVN, or null when the bank does not share it. */
  bvn: string | null;
  institution: MonoInstitution;
}

/** `data` of `GET /v2/accounts/:id/identity`. */
export interface MonoIdentity {
  full_name: string;
  email: string;
  phone: string;
  gender: 'Male' | 'Female';
  dob: string;
  bvn: string;
  marital_status: string;
  address_line1: string;
  address_line2: string;
  created_at: string;
  updated_at: string;
}

/** `SALARY` (one employer, monthly), `WAGES` (a regular payer, weekly) or `BUSINESS` (many irregular payers). */
export type IncomeType = 'SALARY' | 'WAGES' | 'BUSINESS';
export type IncomeFrequency = 'MONTHLY' | 'WEEKLY' | 'VARIABLE';

/** One source of income the provider's income analysis recognised. */
export interface MonoIncomeStream {
  income_type: IncomeType;
  frequency: IncomeFrequency;
  monthly_average: Kobo;
  average_income_amount: Kobo;
  currency: 'NGN';
  /** 0 (erratic) to 1 (same amount every period, no gaps). */
  stability: number;
  first_income_date: string | null;
  last_income_date: string | null;
  last_income_amount: Kobo;
  last_income_description: string | null;
  /** Calendar months in which this stream paid anything. */
  periods_with_income: number;
  number_of_incomes: number;
  /** Months in the analyzed period. */
  number_of_months: number;
}

/** Result of the income job (`mono.events.account_income` data and `income-records` items). */
export interface MonoIncome {
  account: string;
  account_name: string;
  account_number: string;
  income_summary: { total_income: Kobo; employer: string };
  income_streams: MonoIncomeStream[];
  first_transaction_date: string | null;
  last_transaction_date: string | null;
  /** Months analyzed. */
  period: number;
  number_of_income_streams: number;
  total_income: Kobo;
  annual_income: Kobo;
  monthly_income: Kobo;
  aggregated_monthly_average: Kobo;
  aggregated_monthly_average_regular: Kobo;
  aggregated_monthly_average_irregular: Kobo;
  total_regular_income_amount: Kobo;
  total_irregular_income_amount: Kobo;
}

/** A large debit, as the insights list the top three. */
export interface MonoHighestDebit {
  amount: Kobo;
  narration: string;
  date: string;
}

/** Result of the statement insights job (`GET /v2/enrichments/record/:jobId` data). */
export interface MonoStatementInsights {
  start_date: string;
  end_date: string;
  /** Days between the first and the last transaction. */
  transaction_length: number;
  transaction_count: number;
  /** Overall credits minus overall debits over the period. */
  balance_after_expense: Kobo;
  opening_balance: Kobo;
  closing_balance: Kobo;
  /** Mean of the end-of-day balances over the period. */
  average_balance: Kobo;
  debit_to_credit_ratio: number;
  overall_credits: Kobo;
  overall_debits: Kobo;
  number_of_credit_transactions: number;
  number_of_debit_transactions: number;
  total_recurring_credits: Kobo;
  total_recurring_debits: Kobo;
  /** A single debit of half a salary or more within two days of payday. */
  immediate_large_withdrawal_post_payday: boolean;
  /** A credit of ₦10,000 or more sent out again, same amount, within a day. */
  identical_debit_vs_credit: boolean;
  /** Cash deposits in some month exceed the monthly salary. */
  cash_deposits_larger_than_salary: boolean;
  highest_debits: MonoHighestDebit[];
}
