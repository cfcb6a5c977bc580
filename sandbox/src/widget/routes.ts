import { randomBytes } from 'node:crypto';
import express, { Router, type Response } from 'express';
import { findInstitution, INSTITUTIONS, isPersonaId, PERSONA_IDS, personaSpec, type Institution } from '../personas';
import type { Linking } from '../provider/linking';
import { closedExplanation, lookupSession } from '../provider/sessions';
import type { LinkSession, ProviderStore } from '../provider/store';
import { chooseAccountPage, chooseBankPage, linkedPage, problemPage, signInPage, type LinkedSummary } from './views';

/** The sandbox bank's test login. */
export const TEST_CREDENTIALS = { username: 'user_good', password: '123456' } as const;

export interface WidgetOptions {
  store: ProviderStore;
  linking: Linking;
  clock: () => Date;
}

const PERSONAS = PERSONA_IDS.map(personaSpec);

const field = (body: unknown, name: string): string => {
  const value = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;
  return typeof value === 'string' ? value : '';
};

/**
 * The hosted widget an applicant clicks through: choose a bank, sign in, pick an account,
 * consent, link. Server-rendered HTML with plain forms.
 */
export function createWidgetRoutes({ store, linking, clock }: WidgetOptions): Router {
  const router = Router();
  const forms = express.urlencoded({ extended: false, limit: '16kb' });

  /** A closed session's page: 409, naming the lender and the loan, and saying why. */
  const refuseClosed = (session: LinkSession, res: Response): void => {
    res
      .status(409)
      .type('html')
      .send(
        problemPage(
          'This application takes no more bank accounts',
          closedExplanation(session, session.closed?.reason ?? 'closed'),
          undefined,
          session.purpose,
        ),
      );
  };

  /** The open session, or null after answering with the 404/409/410 page. */
  const openSession = (id: string, res: Response): LinkSession | null => {
    const found = lookupSession(store.sessions, id, clock());
    if (found.ok) return found.session;
    if (found.error === 'SESSION_CLOSED') {
      refuseClosed(found.session, res);
    } else if (found.error === 'SESSION_EXPIRED') {
      res
        .status(410)
        .type('html')
        .send(problemPage('This link has expired', 'Ask the lender for a new link to connect your account.'));
    } else {
      res.status(404).type('html').send(problemPage('Link not found', 'This account-linking address is not valid.'));
    }
    return null;
  };

  const base = (session: LinkSession): string => `/widget/${session.id}`;

  const relinkedAccount = (session: LinkSession) =>
    session.accountId ? store.accounts.get(session.accountId) : undefined;

  const summaries = (session: LinkSession): LinkedSummary[] =>
    session.linkedAccountIds.flatMap((id) => {
      const account = store.accounts.get(id);
      return account
        ? [{ institution: account.institution.name, accountNumber: account.data.account.account_number }]
        : [];
    });

  /** Banks on offer: all of them, or only the account's bank when re-linking. */
  const banksFor = (session: LinkSession): readonly Institution[] => {
    const relinked = relinkedAccount(session);
    return relinked ? [relinked.institution] : INSTITUTIONS;
  };

  router.get('/widget/:sessionId', (req, res) => {
    const session = openSession(req.params.sessionId, res);
    if (!session) return;
    const banks = banksFor(session);
    res.type('html').send(
      chooseBankPage({
        action: `${base(session)}/login`,
        customerName: session.customer.name,
        institutions: banks,
        ...(banks.length === 1 && banks[0] ? { selected: banks[0].id } : {}),
        linked: session.scope === 'auth' ? summaries(session) : [],
        reauth: session.scope === 'reauth',
        purpose: session.purpose,
      }),
    );
  });

  router.get('/widget/:sessionId/login', (req, res) => {
    const session = openSession(req.params.sessionId, res);
    if (!session) return;
    const institution = banksFor(session).find((bank) => bank.id === String(req.query.bank ?? ''));
    if (!institution) {
      res
        .status(400)
        .type('html')
        .send(problemPage('Choose a bank', 'Please choose your bank from the list.', base(session)));
      return;
    }
    res.type('html').send(signInPage({ action: `${base(session)}/login`, institution, purpose: session.purpose }));
  });

  router.post('/widget/:sessionId/login', forms, (req, res) => {
    const session = openSession(req.params.sessionId, res);
    if (!session) return;
    const institution = banksFor(session).find((bank) => bank.id === field(req.body, 'bank'));
    if (!institution) {
      res
        .status(400)
        .type('html')
        .send(problemPage('Choose a bank', 'Please choose your bank from the list.', base(session)));
      return;
    }
    const username = field(req.body, 'username').trim();
    const password = field(req.body, 'password');
    if (username !== TEST_CREDENTIALS.username || password !== TEST_CREDENTIALS.password) {
      res
        .status(401)
        .type('html')
        .send(
          signInPage({
            action: `${base(session)}/login`,
            institution,
            purpose: session.purpose,
            error: 'Incorrect username or password. Please try again.',
          }),
        );
      return;
    }
    const ticket = randomBytes(16).toString('hex');
    session.tickets.set(ticket, institution.id);
    const relinked = relinkedAccount(session);
    res.type('html').send(
      chooseAccountPage({
        action: `${base(session)}/link`,
        institution,
        ticket,
        personas: PERSONAS,
        purpose: session.purpose,
        ...(relinked
          ? {
              relinking: {
                institution: relinked.institution.name,
                accountNumber: relinked.data.account.account_number,
              },
            }
          : {}),
      }),
    );
  });

  router.post('/widget/:sessionId/link', forms, (req, res) => {
    const session = openSession(req.params.sessionId, res);
    if (!session) return;
    const ticket = field(req.body, 'ticket');
    const institution = findInstitution(session.tickets.get(ticket) ?? '');
    if (!institution) {
      res
        .status(400)
        .type('html')
        .send(problemPage('Please sign in again', 'Your sign-in is no longer valid.', base(session)));
      return;
    }
    const persona = field(req.body, 'persona') || 'salaried';
    const relinked = relinkedAccount(session);
    const again = (error: string, status: number): void => {
      res
        .status(status)
        .type('html')
        .send(
          chooseAccountPage({
            action: `${base(session)}/link`,
            institution,
            ticket,
            personas: PERSONAS,
            purpose: session.purpose,
            selected: persona,
            ...(relinked
              ? {
                  relinking: {
                    institution: relinked.institution.name,
                    accountNumber: relinked.data.account.account_number,
                  },
                }
              : {}),
            error,
          }),
        );
    };
    if (!isPersonaId(persona)) return again('Please choose one of the accounts listed.', 400);
    if (field(req.body, 'consent') !== 'yes') return again('Please tick the consent box to continue.', 400);

    session.tickets.delete(ticket);
    const outcome = linking.link({ sessionId: session.id, institution, persona });
    if (!outcome.ok) {
      // Closed between the sign-in and the link: the same page as opening a closed session.
      if (outcome.error === 'SESSION_CLOSED' && outcome.session) {
        refuseClosed(outcome.session, res);
        return;
      }
      res
        .status(outcome.error === 'SESSION_EXPIRED' ? 410 : 404)
        .type('html')
        .send(problemPage('Could not link the account', 'This link is no longer valid.'));
      return;
    }
    const { account, reauthorised } = outcome;
    const doneUrl = session.redirectUrl ? new URL(session.redirectUrl) : null;
    doneUrl?.searchParams.set('status', reauthorised ? 'reauthorised' : 'linked');
    if (session.ref) doneUrl?.searchParams.set('reference', session.ref);
    res.type('html').send(
      linkedPage({
        account: { institution: account.institution.name, accountNumber: account.data.account.account_number },
        holderName: account.data.account.name,
        linkAnotherUrl: reauthorised ? null : base(session),
        doneUrl: doneUrl?.toString() ?? null,
        reauthorised,
        purpose: session.purpose,
      }),
    );
  });

  return router;
}
