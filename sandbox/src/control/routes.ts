import { Router } from 'express';
import { z } from 'zod';
import { failed } from '../http/envelope';
import { findInstitution, INSTITUTIONS, isPersonaId, listPersonas, loanStory, PERSONA_IDS } from '../personas';
import type { Faults } from '../provider/faults';
import type { Linking, LinkError } from '../provider/linking';
import { closedExplanation, sessionIdOf } from '../provider/sessions';

export interface ControlRoutesOptions {
  linking: Linking;
  faults: Faults;
  clock: () => Date;
}

const LinkBody = z.object({
  widgetUrl: z.string().min(1),
  institution: z.string().min(1).optional(),
  persona: z.string().min(1).optional(),
});

const OutcomeQuery = z.object({
  persona: z.string().min(1),
  seed: z.string().min(1).max(200),
  amount: z.coerce.number().positive().max(100_000_000),
  tenor: z.coerce.number().int().min(1).max(60),
});

const FaultBody = z.object({
  status: z.union([z.literal(500), z.literal(502), z.literal(503)]),
  count: z.number().int().min(1).max(10_000),
  target: z.enum(['provider', 'bureau']).default('provider'),
});

const LINK_ERROR_STATUS: Record<LinkError, number> = {
  SESSION_NOT_FOUND: 404,
  SESSION_EXPIRED: 410,
  SESSION_CLOSED: 409,
  ACCOUNT_NOT_FOUND: 404,
};

const LINK_ERROR_MESSAGE: Record<LinkError, string> = {
  SESSION_NOT_FOUND: 'Unknown widget session',
  SESSION_EXPIRED: 'This widget session has expired',
  SESSION_CLOSED: 'This widget session is closed: the application takes no more accounts',
  ACCOUNT_NOT_FOUND: 'The account to re-link no longer exists',
};

/** The sandbox's own endpoints: headless linking, personas, fault injection, health. */
export function createControlRoutes({ linking, faults, clock }: ControlRoutesOptions): Router {
  const router = Router();

  router.get('/sandbox/health', (_req, res) => {
    res.json({ status: 'ok' });
  });

  router.get('/sandbox/personas', (_req, res) => {
    res.json(listPersonas());
  });

  // How a loan to a persona would turn out, for demonstration books (examples/performance-demo).
  router.get('/sandbox/outcomes', (req, res) => {
    const query = OutcomeQuery.safeParse(req.query);
    if (!query.success || !isPersonaId(query.data.persona)) {
      res
        .status(400)
        .json(
          failed(
            clock(),
            `Expected ?persona=<${PERSONA_IDS.join('|')}>&seed=<text>&amount=<Naira>&tenor=<1-60 months>`,
          ),
        );
      return;
    }
    const { persona, seed, amount, tenor } = query.data;
    res.json({ persona, seed, amount, tenor, steps: loanStory(persona as never, seed, amount, tenor) });
  });

  router.get('/sandbox/institutions', (_req, res) => {
    res.json(INSTITUTIONS.map(({ id, name, cbnCode, nipCode }) => ({ id, name, cbnCode, nipCode })));
  });

  router.post('/sandbox/link', (req, res) => {
    const parsed = LinkBody.safeParse(req.body ?? {});
    if (!parsed.success) {
      res.status(400).json(failed(clock(), 'Expected {widgetUrl, institution?, persona?}'));
      return;
    }
    const { widgetUrl, institution: institutionQuery, persona } = parsed.data;
    const sessionId = sessionIdOf(widgetUrl);
    if (sessionId === null) {
      res.status(400).json(failed(clock(), 'widgetUrl is not a widget address (<origin>/widget/<id>)'));
      return;
    }
    const institution = institutionQuery === undefined ? undefined : findInstitution(institutionQuery);
    if (institutionQuery !== undefined && !institution) {
      res.status(400).json(failed(clock(), `Unknown institution "${institutionQuery}"; see GET /sandbox/institutions`));
      return;
    }
    if (persona !== undefined && !isPersonaId(persona)) {
      res.status(400).json(failed(clock(), `Unknown persona "${persona}"; one of ${PERSONA_IDS.join(', ')}`));
      return;
    }
    const outcome = linking.link({
      sessionId,
      ...(institution ? { institution } : {}),
      ...(persona !== undefined && isPersonaId(persona) ? { persona } : {}),
    });
    if (!outcome.ok) {
      const session = outcome.session;
      const message = session?.closed
        ? closedExplanation(session, session.closed.reason)
        : LINK_ERROR_MESSAGE[outcome.error];
      res.status(LINK_ERROR_STATUS[outcome.error]).json(failed(clock(), message));
      return;
    }
    res.json({
      providerAccountId: outcome.account.id,
      institution: outcome.account.institution.name,
      accountNumber: outcome.account.data.account.account_number,
      holderName: outcome.account.data.account.name,
      persona: outcome.account.persona,
    });
  });

  router.post('/sandbox/faults', (req, res) => {
    const parsed = FaultBody.safeParse(req.body ?? {});
    if (!parsed.success) {
      res.status(400).json(failed(clock(), 'Expected {status: 500|502|503, count: N, target?: "provider"|"bureau"}'));
      return;
    }
    faults.arm(parsed.data.target, parsed.data.status, parsed.data.count);
    res.json({ armed: faults.pending() });
  });

  router.post('/sandbox/faults/reset', (_req, res) => {
    faults.reset();
    res.json({ armed: faults.pending() });
  });

  return router;
}
