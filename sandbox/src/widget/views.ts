import type { Institution, PersonaSpec } from '../personas';
import type { LinkPurpose } from '../provider/store';

/** Escapes text for HTML bodies and attribute values. */
export function escapeHtml(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

const STYLE = `
  body { font-family: system-ui, sans-serif; background: #f3f5f9; margin: 0; color: #1b2430; }
  main { max-width: 420px; margin: 48px auto; background: #fff; border-radius: 12px; padding: 28px 32px; box-shadow: 0 4px 20px rgba(0,0,0,.08); }
  h1 { font-size: 1.35rem; margin-top: 0; }
  label { display: block; margin: 14px 0 6px; font-weight: 600; }
  input[type=text], input[type=password], select { width: 100%; padding: 10px; border: 1px solid #c9d1dc; border-radius: 8px; box-sizing: border-box; font-size: 1rem; }
  .consent { display: flex; gap: 10px; align-items: flex-start; font-weight: normal; }
  button, .button { display: inline-block; margin-top: 20px; padding: 11px 18px; border: 0; border-radius: 8px; background: #182cd1; color: #fff; font-size: 1rem; cursor: pointer; text-decoration: none; }
  .secondary { background: #e7eaf3; color: #182cd1; }
  .error { background: #fdecec; color: #a01818; padding: 10px 12px; border-radius: 8px; }
  .hint { color: #5b6675; font-size: .9rem; }
  .linked { padding-left: 18px; }
  .purpose { background: #eef1fb; border-radius: 8px; padding: 12px 14px; margin: 0 0 18px; }
  .purpose .lender { display: block; font-weight: 700; font-size: 1.05rem; }
  .purpose .loan { display: block; margin-top: 4px; }
  @media (max-width: 480px) { main { margin: 0; border-radius: 0; padding: 22px 18px; min-height: 100vh; box-shadow: none; } }
`;

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>`;
}

/** Naira from kobo, as an applicant reads it: ₦425,000 (kobo shown only when there are some). */
export function naira(kobo: number): string {
  const whole = kobo % 100 === 0;
  return `₦${(kobo / 100).toLocaleString('en-NG', { minimumFractionDigits: whole ? 0 : 2, maximumFractionDigits: 2 })}`;
}

/** The loan asked for, in words: "a loan of ₦425,000 over 9 months". */
export function loanInWords(purpose: LinkPurpose): string | null {
  if (purpose.loanAmount === null) return null;
  const tenor = purpose.loanTenorMonths;
  const over = tenor === null ? '' : ` over ${tenor} ${tenor === 1 ? 'month' : 'months'}`;
  return `a loan of ${naira(purpose.loanAmount)}${over}`;
}

/** Who asks the applicant to link, and for which loan: at the top of every page of a session. */
function purposeBlock(purpose: LinkPurpose | null): string {
  if (!purpose) return '';
  const loan = loanInWords(purpose);
  const lender = purpose.lenderName
    ? `<span class="lender" id="lender-name">${escapeHtml(purpose.lenderName)}</span>`
    : '';
  const asks = loan ? `<span class="loan" id="loan-summary">Your application for ${escapeHtml(loan)}</span>` : '';
  return `<p class="purpose" id="purpose">${lender}${asks}</p>`;
}

/** Who reads the account, in the consent sentence. */
const reader = (purpose: LinkPurpose | null): string => escapeHtml(purpose?.lenderName ?? 'the lender');

const errorBlock = (error: string | undefined): string =>
  error ? `<p class="error" id="error" role="alert">${escapeHtml(error)}</p>` : '';

/** A linked account, as the widget lists it. */
export interface LinkedSummary {
  institution: string;
  accountNumber: string;
}

const masked = (accountNumber: string): string => `••••${accountNumber.slice(-4)}`;

export function chooseBankPage(input: {
  action: string;
  customerName: string;
  institutions: readonly Institution[];
  selected?: string;
  linked: readonly LinkedSummary[];
  reauth: boolean;
  purpose: LinkPurpose | null;
}): string {
  const options = input.institutions
    .map(
      (institution) =>
        `<option value="${escapeHtml(institution.id)}"${institution.id === input.selected ? ' selected' : ''}>${escapeHtml(institution.name)}</option>`,
    )
    .join('\n');
  const linked =
    input.linked.length === 0
      ? ''
      : `<p>Already linked in this session:</p><ul class="linked" id="linked-accounts">${input.linked
          .map((item) => `<li>${escapeHtml(item.institution)} ${escapeHtml(masked(item.accountNumber))}</li>`)
          .join('')}</ul>`;
  return page(
    'Link your bank account',
    `${purposeBlock(input.purpose)}<h1>${input.reauth ? 'Re-link your bank account' : 'Link your bank account'}</h1>
<p>Hello ${escapeHtml(input.customerName)}, ${reader(input.purpose)} asks to see a bank account of yours to assess this loan application. Choose the bank that holds it.</p>
${linked}
<form method="get" action="${escapeHtml(input.action)}">
<label for="bank">Bank</label>
<select id="bank" name="bank" required>
${options}
</select>
<button type="submit" id="continue">Continue</button>
</form>`,
  );
}

export function signInPage(input: {
  action: string;
  institution: Institution;
  purpose: LinkPurpose | null;
  error?: string;
}): string {
  return page(
    `Sign in to ${input.institution.name}`,
    `${purposeBlock(input.purpose)}<h1>Sign in to ${escapeHtml(input.institution.name)}</h1>
${errorBlock(input.error)}
<form method="post" action="${escapeHtml(input.action)}">
<input type="hidden" name="bank" value="${escapeHtml(input.institution.id)}">
<label for="username">Username</label>
<input type="text" id="username" name="username" autocomplete="username" required>
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password" required>
<button type="submit" id="sign-in">Sign in</button>
</form>
<p class="hint">Sandbox test credentials: username <code>user_good</code>, password <code>123456</code>.</p>`,
  );
}

export function chooseAccountPage(input: {
  action: string;
  institution: Institution;
  ticket: string;
  personas: readonly PersonaSpec[];
  selected?: string;
  /** Set when re-linking: the one account shown instead of a choice. */
  relinking?: LinkedSummary;
  purpose: LinkPurpose | null;
  error?: string;
}): string {
  const choice = input.relinking
    ? `<p id="relink-account">${escapeHtml(input.relinking.institution)} ${escapeHtml(masked(input.relinking.accountNumber))}</p>`
    : `<label for="persona">Account</label>
<select id="persona" name="persona" required>
${input.personas
  .map(
    (persona) =>
      `<option value="${persona.id}"${persona.id === input.selected ? ' selected' : ''}>${escapeHtml(persona.accountLabel)}</option>`,
  )
  .join('\n')}
</select>`;
  return page(
    'Choose the account to link',
    `${purposeBlock(input.purpose)}<h1>${input.relinking ? 'Confirm the account' : 'Choose the account to link'}</h1>
${errorBlock(input.error)}
<form method="post" action="${escapeHtml(input.action)}">
<input type="hidden" name="ticket" value="${escapeHtml(input.ticket)}">
${choice}
<label class="consent" for="consent"><input type="checkbox" id="consent" name="consent" value="yes">
<span>I allow ${reader(input.purpose)} to read this ${escapeHtml(input.institution.name)} account's details, balance and transactions to assess my loan application.</span></label>
<button type="submit" id="link-account">Link account</button>
</form>`,
  );
}

export function linkedPage(input: {
  account: LinkedSummary;
  holderName: string;
  linkAnotherUrl: string | null;
  doneUrl: string | null;
  reauthorised: boolean;
  purpose: LinkPurpose | null;
}): string {
  const another = input.linkAnotherUrl
    ? `<a class="button secondary" id="link-another" href="${escapeHtml(input.linkAnotherUrl)}">Link another account</a>`
    : '';
  const done = input.doneUrl ? ` <a class="button" id="done" href="${escapeHtml(input.doneUrl)}">Done</a>` : '';
  return page(
    'Account linked',
    `${purposeBlock(input.purpose)}<h1 id="result">${input.reauthorised ? 'Account re-linked' : 'Account linked'}</h1>
<p>${escapeHtml(input.account.institution)} account <strong id="account-number">${escapeHtml(masked(input.account.accountNumber))}</strong> in the name of <strong id="holder-name">${escapeHtml(input.holderName)}</strong> is now linked. You can close this page.</p>
${another}${done}`,
  );
}

export function problemPage(title: string, message: string, retryUrl?: string, purpose?: LinkPurpose | null): string {
  const retry = retryUrl
    ? `<a class="button secondary" id="start-again" href="${escapeHtml(retryUrl)}">Start again</a>`
    : '';
  return page(
    title,
    `${purposeBlock(purpose ?? null)}<h1 id="problem">${escapeHtml(title)}</h1><p id="problem-detail">${escapeHtml(message)}</p>${retry}`,
  );
}
