import { BUILTIN_POLICY_VERSION, type PolicyStatus } from '@loan/contracts';

/** One activation of a lender's policy version: it decides the analyses asked for from `at` on. */
export interface Activation {
  version: number;
  at: Date;
  actor: string;
}

/** The challenger: decides alongside the active version, in the shadow, from `since` on. */
export interface Challenger {
  version: number;
  since: Date;
  actor: string;
}

/**
 * A lender's policy book: how many versions it has, every activation in order and the
 * challenger. The versions themselves are immutable; their status follows from the book.
 */
export interface PolicyBook {
  clientId: string;
  /** The highest version number given so far (0: only the built-in policy). */
  lastVersion: number;
  activations: Activation[];
  challenger: Challenger | null;
}

export const emptyBook = (clientId: string): PolicyBook => ({
  clientId,
  lastVersion: BUILTIN_POLICY_VERSION,
  activations: [],
  challenger: null,
});

/** The version active now: the last one activated, or the built-in policy. */
export const activeVersion = (book: PolicyBook): number =>
  book.activations[book.activations.length - 1]?.version ?? BUILTIN_POLICY_VERSION;

/**
 * The version that was active at `at`: the last activation at or before it. An analysis is
 * decided by the version active when the lender asked for it, however late it is handled.
 */
export const activeVersionAt = (book: PolicyBook, at: Date): number => {
  let version = BUILTIN_POLICY_VERSION;
  for (const activation of book.activations) {
    if (activation.at.getTime() <= at.getTime()) version = activation.version;
  }
  return version;
};

/** ACTIVE for the active version, RETIRED for one active before, DRAFT for one never active. */
export const statusOf = (book: PolicyBook, version: number): PolicyStatus => {
  if (version === activeVersion(book)) return 'ACTIVE';
  if (version === BUILTIN_POLICY_VERSION || book.activations.some((a) => a.version === version)) return 'RETIRED';
  return 'DRAFT';
};

export type PolicyChangeError = { code: 'NOT_FOUND'; message: string } | { code: 'INVALID'; message: string };

type Change = { ok: true; book: PolicyBook } | ({ ok: false } & PolicyChangeError);

const exists = (book: PolicyBook, version: number) => version >= 0 && version <= book.lastVersion;
const notFound = (version: number): Change => ({
  ok: false,
  code: 'NOT_FOUND',
  message: `Policy version ${version} not found`,
});

/**
 * Activates a draft: it decides every analysis asked for from `now` on. A retired version
 * cannot come back (create a new version from it); activating the active one changes nothing.
 * A challenger that is activated stops being the challenger.
 */
export const activate = (book: PolicyBook, version: number, now: Date, actor: string): Change => {
  if (!exists(book, version)) return notFound(version);
  const status = statusOf(book, version);
  if (status === 'ACTIVE') return { ok: true, book };
  if (status === 'RETIRED')
    return {
      ok: false,
      code: 'INVALID',
      message: `Policy version ${version} is retired and cannot be activated again; create a new version from it`,
    };
  return {
    ok: true,
    book: {
      ...book,
      activations: [...book.activations, { version, at: now, actor }],
      challenger: book.challenger?.version === version ? null : book.challenger,
    },
  };
};

/** Makes a draft the challenger (in place of any other): it decides in the shadow of the active one. */
export const setChallenger = (book: PolicyBook, version: number, now: Date, actor: string): Change => {
  if (!exists(book, version)) return notFound(version);
  const status = statusOf(book, version);
  if (status !== 'DRAFT')
    return {
      ok: false,
      code: 'INVALID',
      message: `Policy version ${version} is ${status}; only a draft can be the challenger`,
    };
  return { ok: true, book: { ...book, challenger: { version, since: now, actor } } };
};

export const clearChallenger = (book: PolicyBook): Change =>
  book.challenger === null
    ? { ok: false, code: 'NOT_FOUND', message: 'There is no challenger' }
    : { ok: true, book: { ...book, challenger: null } };
