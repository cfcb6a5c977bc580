import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { api, ApiError, type PolicyList, type PolicyVersionView, type SimulationResult } from '../api';
import { BarChart } from '../charts';
import { money, when } from '../model';
import {
  actionWords,
  affordabilitySentences,
  BAND_WORDS,
  BANDS,
  bandSentences,
  dataRuleSentences,
  differences,
  FEATURE_WORDS,
  FEATURES,
  formOf,
  knockOutSentence,
  limitSentences,
  offerSentences,
  OPERATOR_WORDS,
  OPERATORS,
  policyOf,
  problemsByField,
  type Policy,
  type PolicyForm,
} from '../policyModel';
import { Badge, ConfirmButton, Loading, PageHeading, Problem, RoleNote, useLoad } from '../ui';
import { may } from '../permissions';
import { useSession } from '../session';

const OUTCOMES = [
  ['APPROVED', 'Approved'],
  ['COUNTER_OFFER', 'Counter-offer'],
  ['MANUAL_REVIEW', 'Manual review'],
  ['DECLINED', 'Declined'],
] as const;

const fieldId = (path: string) => `policy-${path.replace(/\./g, '-')}`;
const message = (e: unknown) => (e instanceof ApiError ? e.message : String(e));
const label = (v: PolicyVersionView) => (v.builtin ? 'version 0 (built-in)' : `version ${v.version}`);

/** The rules of a policy in sentences. */
function PolicyInWords({ policy, headingLevel }: { policy: Policy; headingLevel: 2 | 3 }) {
  const H = headingLevel === 2 ? 'h3' : 'h4';
  return (
    <div class="policy-words">
      <H>Score bands</H>
      <ul>
        {bandSentences(policy).map((s) => (
          <li key={s}>{s}</li>
        ))}
      </ul>
      <H>Affordability</H>
      <ul>
        {affordabilitySentences(policy).map((s) => (
          <li key={s}>{s}</li>
        ))}
      </ul>
      <H>Loan limits</H>
      <ul>
        {limitSentences(policy).map((s) => (
          <li key={s}>{s}</li>
        ))}
      </ul>
      <H>Data rules</H>
      <ul>
        {dataRuleSentences(policy).map((s) => (
          <li key={s}>{s}</li>
        ))}
      </ul>
      <H>Offers</H>
      <ul>
        {offerSentences(policy).map((s) => (
          <li key={s}>{s}</li>
        ))}
      </ul>
      <H>Knock-out rules</H>
      {policy.knockOuts.length ? (
        <ul>
          {policy.knockOuts.map((rule) => (
            <li key={rule.code}>{knockOutSentence(rule)}</li>
          ))}
        </ul>
      ) : (
        <p>None: every application is decided by its score band and the rules above.</p>
      )}
    </div>
  );
}

/** A labelled control with the API's problems for its field under it, tied to it for screen readers. */
function Field(props: {
  path: string;
  label: string;
  problems: Map<string, string[]>;
  hint?: string;
  children: (attrs: Record<string, string | undefined>) => ComponentChildren;
}) {
  const id = fieldId(props.path);
  const mine = [...props.problems]
    .filter(([field]) => field === props.path || field.startsWith(`${props.path}.`))
    .flatMap(([, m]) => m);
  const described = [props.hint ? `${id}-hint` : '', mine.length ? `${id}-error` : ''].filter(Boolean).join(' ');
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      {props.hint ? (
        <span id={`${id}-hint`} class="hint">
          {props.hint}
        </span>
      ) : null}
      {props.children({
        id,
        'aria-invalid': mine.length ? 'true' : undefined,
        'aria-describedby': described || undefined,
      })}
      {mine.length ? (
        <span id={`${id}-error`} class="field-error">
          {mine.join('; ')}
        </span>
      ) : null}
    </div>
  );
}

function Choice<T extends string>(props: {
  path: string;
  label: string;
  problems: Map<string, string[]>;
  value: T;
  options: readonly T[];
  onChange: (v: T) => void;
  words?: (v: T) => string;
}) {
  return (
    <Field path={props.path} label={props.label} problems={props.problems}>
      {(attrs) => (
        <select
          {...attrs}
          value={props.value}
          onChange={(e) => props.onChange((e.currentTarget as HTMLSelectElement).value as T)}
        >
          {props.options.map((option) => (
            <option key={option} value={option}>
              {props.words ? props.words(option) : option}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

function Text(props: {
  path: string;
  label: string;
  problems: Map<string, string[]>;
  value: string;
  onInput: (v: string) => void;
  hint?: string;
  numeric?: boolean;
  wide?: boolean;
}) {
  return (
    <Field path={props.path} label={props.label} problems={props.problems} hint={props.hint}>
      {(attrs) => (
        <input
          {...attrs}
          type="text"
          inputMode={props.numeric ? 'decimal' : undefined}
          size={props.wide ? 30 : 10}
          value={props.value}
          onInput={(e) => props.onInput((e.currentTarget as HTMLInputElement).value)}
        />
      )}
    </Field>
  );
}

/** The draft form, filled from a version; a 400 names its problems at their fields. */
function DraftForm({ base, onCreated }: { base: PolicyVersionView; onCreated: (version: number) => void }) {
  const [form, setForm] = useState<PolicyForm>(() => formOf(base.policy));
  const [problems, setProblems] = useState<Map<string, string[]>>(new Map());
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const set = (change: Partial<PolicyForm>) => setForm((f) => ({ ...f, ...change }));
  const setRule = (i: number, change: Partial<PolicyForm['knockOuts'][number]>) =>
    setForm((f) => ({ ...f, knockOuts: f.knockOuts.map((rule, n) => (n === i ? { ...rule, ...change } : rule)) }));

  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setFailure(null);
    try {
      const created = await api.createPolicy(policyOf(form, base.policy));
      setProblems(new Map());
      onCreated(created.version);
    } catch (e) {
      if (e instanceof ApiError && e.status === 400) {
        const found = problemsByField(e.message);
        setProblems(found);
        setFailure(`The draft was not saved: ${[...found.values()].flat().length} problem(s), shown at their fields.`);
        const first = [...found.keys()].find(Boolean);
        setTimeout(() => document.getElementById(first ? fieldId(first) : 'draft-failure')?.focus(), 0);
      } else {
        setFailure(`The draft was not saved: ${message(e)}`);
      }
    } finally {
      setBusy(false);
    }
  }

  const p = problems;
  const general = [...p]
    .filter(([field]) => field === '' || field === 'knockOuts' || field === 'bands.thresholds')
    .flatMap(([, m]) => m);
  return (
    <form class="policy-form" onSubmit={submit} noValidate aria-describedby="draft-help">
      <p id="draft-help" class="hint">
        Starts from {label(base)}. Saving makes a new draft version; nothing changes for applicants until a version is
        activated.
      </p>
      {failure ? (
        <div id="draft-failure" class="notice notice-error" role="alert" tabIndex={-1}>
          <p>{failure}</p>
          {general.length ? (
            <ul>
              {general.map((m) => (
                <li key={m}>{m}</li>
              ))}
            </ul>
          ) : null}
        </div>
      ) : null}
      <Text path="name" label="Name" problems={p} value={form.name} onInput={(name) => set({ name })} wide />

      <fieldset>
        <legend>Score bands</legend>
        <p class="hint">
          The lowest total score (0-100) of each band, strictly descending; below high risk is very high risk.
        </p>
        <div class="filters">
          {(['LOW_RISK', 'MEDIUM_RISK', 'HIGH_RISK'] as const).map((band) => (
            <Text
              key={band}
              path={`bands.thresholds.${band}`}
              label={`${BAND_WORDS[band]} from score`}
              problems={p}
              numeric
              value={form.thresholds[band]}
              onInput={(v) => set({ thresholds: { ...form.thresholds, [band]: v } })}
            />
          ))}
        </div>
        <div class="filters">
          {BANDS.map((band) => (
            <Choice
              key={band}
              path={`bands.actions.${band}`}
              label={`${BAND_WORDS[band]}: action`}
              problems={p}
              value={form.actions[band]}
              options={['APPROVE', 'REVIEW', 'DECLINE'] as const}
              words={actionWords}
              onChange={(v) => set({ actions: { ...form.actions, [band]: v } })}
            />
          ))}
        </div>
      </fieldset>

      <fieldset>
        <legend>Affordability</legend>
        <div class="filters">
          <Text
            path="affordability.maxDebtServiceRatio"
            label="Maximum debt-service ratio (% of income)"
            hint="All repayments, the new one included; 5 to 80."
            problems={p}
            numeric
            value={form.maxDebtServicePercent}
            onInput={(maxDebtServicePercent) => set({ maxDebtServicePercent })}
          />
          <Text
            path="affordability.tenors"
            label="Tenors (months)"
            hint="Separated by commas; 1 to 60."
            problems={p}
            value={form.tenors}
            onInput={(tenors) => set({ tenors })}
            wide
          />
        </div>
        <div class="filters">
          <div class="field">
            <label class="check">
              <input
                type="checkbox"
                checked={form.counterOffers}
                onChange={(e) => set({ counterOffers: (e.currentTarget as HTMLInputElement).checked })}
              />{' '}
              Offer a smaller amount when the ask is not affordable
            </label>
          </div>
          <Text
            path="affordability.counterOffers.minShareOfAsk"
            label="Counter-offer: least share of the ask (%)"
            problems={p}
            numeric
            value={form.minSharePercent}
            onInput={(minSharePercent) => set({ minSharePercent })}
          />
          <Text
            path="affordability.counterOffers.minAmount"
            label="Counter-offer: least amount (Naira)"
            problems={p}
            numeric
            value={form.counterMinAmount}
            onInput={(counterMinAmount) => set({ counterMinAmount })}
          />
        </div>
      </fieldset>

      <fieldset>
        <legend>Loan limits</legend>
        <div class="filters">
          <Text
            path="loanLimits.minAmount"
            label="Minimum amount (Naira)"
            problems={p}
            numeric
            value={form.minAmount}
            onInput={(minAmount) => set({ minAmount })}
          />
          <Text
            path="loanLimits.maxAmount"
            label="Maximum amount (Naira)"
            hint="Empty: no limit."
            problems={p}
            numeric
            value={form.maxAmount}
            onInput={(maxAmount) => set({ maxAmount })}
          />
          <Text
            path="loanLimits.maxIncomeMultiple"
            label="Maximum multiple of monthly income"
            hint="Empty: no limit."
            problems={p}
            numeric
            value={form.maxIncomeMultiple}
            onInput={(maxIncomeMultiple) => set({ maxIncomeMultiple })}
          />
        </div>
      </fieldset>

      <fieldset>
        <legend>Offers</legend>
        <div class="filters">
          <Text
            path="offer.validityDays"
            label="Days an offer stands"
            hint="2 to 30; never less than two working days."
            problems={p}
            numeric
            value={form.validityDays}
            onInput={(validityDays) => set({ validityDays })}
          />
          <Text
            path="offer.coolingOffWorkingDays"
            label="Working days of cooling-off"
            hint="3 to 14, after acceptance."
            problems={p}
            numeric
            value={form.coolingOffWorkingDays}
            onInput={(coolingOffWorkingDays) => set({ coolingOffWorkingDays })}
          />
        </div>
      </fieldset>

      <fieldset>
        <legend>Data rules</legend>
        <div class="filters">
          <Choice
            path="dataRules.thinFile"
            label="Thin file"
            problems={p}
            value={form.dataRules.thinFile}
            options={['REVIEW', 'DECLINE'] as const}
            words={actionWords}
            onChange={(thinFile) => set({ dataRules: { ...form.dataRules, thinFile } })}
          />
          <Choice
            path="dataRules.bureauUnavailable"
            label="Bureau unavailable"
            problems={p}
            value={form.dataRules.bureauUnavailable}
            options={['REVIEW', 'DECLINE', 'PROCEED'] as const}
            words={actionWords}
            onChange={(bureauUnavailable) => set({ dataRules: { ...form.dataRules, bureauUnavailable } })}
          />
          <Choice
            path="dataRules.identityMismatch"
            label="Identity mismatch"
            problems={p}
            value={form.dataRules.identityMismatch}
            options={['REVIEW', 'DECLINE'] as const}
            words={actionWords}
            onChange={(identityMismatch) => set({ dataRules: { ...form.dataRules, identityMismatch } })}
          />
        </div>
      </fieldset>

      <fieldset>
        <legend>Knock-out rules</legend>
        <p class="hint">
          Each declines or refers an application whatever its score; the code is what the decision carries.
        </p>
        {form.knockOuts.map((rule, i) => (
          <fieldset key={i} class="knock-out">
            <legend>Rule {i + 1}</legend>
            <div class="filters">
              <Text
                path={`knockOuts.${i}.code`}
                label="Code"
                hint="For example HIGH_BETTING."
                problems={p}
                value={rule.code}
                onInput={(code) => setRule(i, { code })}
              />
              <Choice
                path={`knockOuts.${i}.action`}
                label="Action"
                problems={p}
                value={rule.action}
                options={['DECLINE', 'REVIEW'] as const}
                words={actionWords}
                onChange={(action) => setRule(i, { action })}
              />
              <Choice
                path={`knockOuts.${i}.feature`}
                label="When"
                problems={p}
                value={rule.feature}
                options={FEATURES as string[]}
                words={(f) => FEATURE_WORDS[f as keyof typeof FEATURE_WORDS] ?? f}
                onChange={(feature) => setRule(i, { feature })}
              />
              <Choice
                path={`knockOuts.${i}.operator`}
                label="Comparison"
                problems={p}
                value={rule.operator}
                options={OPERATORS}
                words={(o) => OPERATOR_WORDS[o]}
                onChange={(operator) => setRule(i, { operator })}
              />
              <Text
                path={`knockOuts.${i}.value`}
                label="Value"
                problems={p}
                numeric
                value={rule.value}
                onInput={(value) => setRule(i, { value })}
              />
              <Text
                path={`knockOuts.${i}.description`}
                label="Reason shown"
                problems={p}
                value={rule.description}
                onInput={(description) => setRule(i, { description })}
                wide
              />
            </div>
            <button type="button" onClick={() => set({ knockOuts: form.knockOuts.filter((_, n) => n !== i) })}>
              Remove rule {i + 1}
            </button>
          </fieldset>
        ))}
        <button
          type="button"
          onClick={() =>
            set({
              knockOuts: [
                ...form.knockOuts,
                { code: '', feature: FEATURES[0]!, operator: '>', value: '', action: 'DECLINE', description: '' },
              ],
            })
          }
        >
          Add a knock-out rule
        </button>
      </fieldset>

      <p>
        <button type="submit" disabled={busy}>
          {busy ? 'Saving…' : 'Save as a new draft'}
        </button>
      </p>
    </form>
  );
}

/** The outcome counts under the active version and under this one, in a chart and a table; the changed applications linked. */
function Simulation({ version, active }: { version: PolicyVersionView; active: PolicyVersionView }) {
  const [limit, setLimit] = useState('500');
  const [state, setState] = useState<{ busy: boolean; result?: SimulationResult; error?: string }>({ busy: false });
  function run(event: Event) {
    event.preventDefault();
    setState({ busy: true });
    const n = Number(limit);
    api.simulatePolicy(version.version, limit.trim() === '' || !Number.isFinite(n) ? undefined : n).then(
      (result) => setState({ busy: false, result }),
      (e: unknown) => setState({ busy: false, error: message(e) }),
    );
  }
  const result = state.result;
  const headingId = `simulation-${version.version}-heading`;
  return (
    <section aria-labelledby={headingId}>
      <h3 id={headingId}>Simulate {label(version)}</h3>
      <form class="filters" onSubmit={run}>
        <div class="field">
          <label for={`simulate-limit-${version.version}`}>Latest decided applications to replay</label>
          <input
            id={`simulate-limit-${version.version}`}
            type="text"
            inputMode="numeric"
            size={8}
            value={limit}
            onInput={(e) => setLimit((e.currentTarget as HTMLInputElement).value)}
          />
        </div>
        <button type="submit" disabled={state.busy}>
          {state.busy ? 'Simulating…' : 'Simulate'}
        </button>
      </form>
      {state.error ? (
        <p class="notice notice-error" role="alert">
          The simulation failed: {state.error}
        </p>
      ) : null}
      {result ? (
        <div role="status">
          <p>
            {result.evaluated} decided application(s) replayed: {label(active)} (active) against {label(version)}, with
            no new call to the bureau or the bank.
          </p>
          <div class="chart-with-table">
            <BarChart
              label={`Outcomes of ${result.evaluated} applications: ${OUTCOMES.map(([key, text]) => `${text} ${result.current[key]} now, ${result.draft[key]} under ${label(version)}`).join('; ')}`}
              categories={OUTCOMES.map(([, text]) => text)}
              series={[
                {
                  label: `Active (${label(active)})`,
                  values: OUTCOMES.map(([key]) => result.current[key]),
                  colour: '#6b7280',
                },
                {
                  label: `Simulated (${label(version)})`,
                  values: OUTCOMES.map(([key]) => result.draft[key]),
                  colour: '#1f5fa8',
                },
              ]}
              format={(n) => (Number.isInteger(n) ? String(n) : '')}
            />
            <table class="data compact" aria-labelledby={headingId} data-testid="simulation-table">
              <thead>
                <tr>
                  <th scope="col">Outcome</th>
                  <th scope="col" class="num">
                    Active
                  </th>
                  <th scope="col" class="num">
                    Simulated
                  </th>
                </tr>
              </thead>
              <tbody>
                {OUTCOMES.map(([key, text]) => (
                  <tr key={key}>
                    <th scope="row">{text}</th>
                    <td class="num">{result.current[key]}</td>
                    <td class="num">{result.draft[key]}</td>
                  </tr>
                ))}
                <tr class="total">
                  <th scope="row">Amount lent</th>
                  <td class="num">{money(result.approvedAmount.current)}</td>
                  <td class="num">{money(result.approvedAmount.draft)}</td>
                </tr>
              </tbody>
            </table>
          </div>
          <h4>Applications decided differently</h4>
          {result.changed.length ? (
            <ul class="changed">
              {result.changed.map((change) => (
                <li key={change.applicationId}>
                  <a href={`#/applications/${encodeURIComponent(change.applicationId)}`} class="id">
                    {change.applicationId}
                  </a>
                  : <Badge value={change.from} /> becomes <Badge value={change.to} />
                  {change.reasons.length ? <span class="detail"> ({change.reasons.join(', ')})</span> : null}
                </li>
              ))}
            </ul>
          ) : (
            <p>None: every replayed application gets the same outcome.</p>
          )}
        </div>
      ) : null}
    </section>
  );
}

/** What a draft can become: the active version, or the challenger decided in the shadow of the active one. */
function DraftActions({
  version,
  list,
  onChanged,
}: {
  version: PolicyVersionView;
  list: PolicyList;
  onChanged: (note: string) => void;
}) {
  const [error, setError] = useState<string | null>(null);
  const activates = may(useSession(), 'manage');
  const act = (call: () => Promise<unknown>, done: string) => {
    setError(null);
    call().then(
      () => onChanged(done),
      (e: unknown) => setError(message(e)),
    );
  };
  return (
    <div class="stacked">
      <h4>Put version {version.version} to use</h4>
      {activates ? (
        <ConfirmButton
          label={`Activate version ${version.version}`}
          confirmLabel={`Activate version ${version.version} now`}
          warning={`Every analysis asked for from now on is decided by version ${version.version}; ${label(list.active)} is retired and cannot be activated again. Decisions already made do not change.`}
          onConfirm={() => act(() => api.activatePolicy(version.version), `Version ${version.version} is active.`)}
        />
      ) : (
        <RoleNote permission="manage" what="activate a policy" />
      )}
      {version.challenger ? null : (
        <ConfirmButton
          label={`Make version ${version.version} the challenger`}
          confirmLabel={`Make version ${version.version} the challenger now`}
          warning={`Version ${version.version} will decide every new analysis in the shadow of the active one, for the report only; applicants and webhooks see only the active decision.${list.challenger ? ` It replaces version ${list.challenger.version} as the challenger.` : ''}`}
          onConfirm={() =>
            act(() => api.setChallenger(version.version), `Version ${version.version} is the challenger.`)
          }
        />
      )}
      {error ? (
        <p class="notice notice-error" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}

function ChallengerSection({ list, onChanged }: { list: PolicyList; onChanged: (note: string) => void }) {
  const challenger = list.challenger;
  const [report] = useLoad(
    () => (challenger ? api.challengerReport() : Promise.resolve(null)),
    `report-${challenger?.version ?? 'none'}`,
  );
  const [error, setError] = useState<string | null>(null);
  const changes = may(useSession(), 'applications');
  return (
    <section aria-labelledby="challenger-heading">
      <h2 id="challenger-heading">Challenger</h2>
      {!challenger ? (
        <p>
          No challenger. A draft made the challenger decides every new analysis in the shadow of the active version, for
          comparison.
        </p>
      ) : (
        <>
          <p>
            Version {challenger.version} decides in the shadow of {label(list.active)}. Its decisions are never sent to
            the applicant or by webhook.
          </p>
          {report.state === 'loading' ? <Loading what="the challenger's report" /> : null}
          {report.state === 'error' ? <Problem error={report.error} what="The challenger's report" /> : null}
          {report.state === 'ok' && report.value ? (
            <>
              <p>
                Since {when(report.value.challenger.since)}: {report.value.agreed} of {report.value.evaluated}{' '}
                decision(s) agreed.
              </p>
              {report.value.disagreements.length ? (
                <ul class="changed">
                  {report.value.disagreements.map((d) => (
                    <li key={d.applicationId}>
                      <a href={`#/applications/${encodeURIComponent(d.applicationId)}`} class="id">
                        {d.applicationId}
                      </a>
                      : active <Badge value={d.active.decision} />, challenger <Badge value={d.challenger.decision} />
                      {d.challenger.reasons.length ? (
                        <span class="detail"> ({d.challenger.reasons.join(', ')})</span>
                      ) : null}
                    </li>
                  ))}
                </ul>
              ) : null}
            </>
          ) : null}
          {changes ? (
            <ConfirmButton
              label="Clear the challenger"
              confirmLabel="Clear the challenger now"
              warning={`Version ${challenger.version} stops deciding in the shadow; its report so far is no longer shown.`}
              onConfirm={() => {
                setError(null);
                api.clearChallenger().then(
                  () => onChanged('The challenger was cleared.'),
                  (e: unknown) => setError(message(e)),
                );
              }}
            />
          ) : null}
          {error ? (
            <p class="notice notice-error" role="alert">
              {error}
            </p>
          ) : null}
        </>
      )}
    </section>
  );
}

/** Every version, newest first, with what changed from the one before it. */
function History({
  list,
  onEdit,
  onChanged,
}: {
  list: PolicyList;
  onEdit: (v: PolicyVersionView) => void;
  onChanged: (note: string) => void;
}) {
  const versions = [...list.versions].sort((a, b) => b.version - a.version);
  const drafts = may(useSession(), 'applications');
  const byNumber = new Map(list.versions.map((v) => [v.version, v]));
  return (
    <section aria-labelledby="history-heading">
      <h2 id="history-heading">Versions</h2>
      <ol class="versions" reversed>
        {versions.map((v) => {
          const previous = byNumber.get(v.version - 1);
          const diff = previous ? differences(previous.policy, v.policy) : [];
          return (
            <li key={v.version}>
              <h3 id={`version-${v.version}`}>
                Version {v.version}
                {v.policy.name ? `: ${v.policy.name}` : ''} <Badge value={v.status} />
                {v.challenger ? <Badge value="CHALLENGER" /> : null}
              </h3>
              <p class="detail">
                {v.builtin ? 'The built-in policy every lender starts with.' : `Created ${when(v.createdAt)}.`}
                {v.activatedAt ? ` Activated ${when(v.activatedAt)}.` : ''}
              </p>
              {previous ? (
                diff.length ? (
                  <table
                    class="data diff"
                    aria-label={`Changes from version ${previous.version} to version ${v.version}`}
                  >
                    <thead>
                      <tr>
                        <th scope="col">Setting</th>
                        <th scope="col">Version {previous.version}</th>
                        <th scope="col">Version {v.version}</th>
                      </tr>
                    </thead>
                    <tbody>
                      {diff.map((d) => (
                        <tr key={d.field}>
                          <th scope="row">{d.label}</th>
                          <td>{d.before ?? 'none'}</td>
                          <td>{d.after ?? 'none'}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                ) : (
                  <p>Same rules as version {previous.version}.</p>
                )
              ) : null}
              <details>
                <summary>The rules of version {v.version}</summary>
                <PolicyInWords policy={v.policy} headingLevel={3} />
              </details>
              {drafts ? (
                <p class="version-actions">
                  <button type="button" onClick={() => onEdit(v)}>
                    Edit a copy of version {v.version}
                  </button>
                </p>
              ) : null}
              {v.status === 'DRAFT' && drafts ? (
                <>
                  <Simulation version={v} active={list.active} />
                  <DraftActions version={v} list={list} onChanged={onChanged} />
                </>
              ) : null}
            </li>
          );
        })}
      </ol>
    </section>
  );
}

/** The lender's credit policy: the active rules in words, drafts, simulation, activation, the challenger and every version. */
export function PolicyPage() {
  const [loaded, reload] = useLoad(() => api.policies(), 'policies');
  const [base, setBase] = useState<PolicyVersionView | null>(null);
  const [editing, setEditing] = useState(0);
  const [note, setNote] = useState<string | null>(null);
  const drafts = may(useSession(), 'applications');
  const changed = (text: string) => {
    setNote(text);
    reload();
  };
  return (
    <div class="policy-page">
      <PageHeading>Credit policy</PageHeading>
      <RoleNote permission="applications" what="draft, simulate or activate a credit policy" />
      {note ? (
        <p class="notice" role="status">
          {note}
        </p>
      ) : null}
      {loaded.state === 'loading' ? <Loading what="the credit policy" /> : null}
      {loaded.state === 'error' ? <Problem error={loaded.error} what="The credit policy" /> : null}
      {loaded.state === 'ok' ? (
        <>
          <section aria-labelledby="active-heading">
            <h2 id="active-heading">
              Active: {label(loaded.value.active)}
              {loaded.value.active.policy.name ? `, ${loaded.value.active.policy.name}` : ''}
            </h2>
            <p class="detail">
              {loaded.value.active.activatedAt
                ? `Deciding every analysis since ${when(loaded.value.active.activatedAt)}.`
                : 'Deciding every analysis until a version of your own is activated.'}
            </p>
            <PolicyInWords policy={loaded.value.active.policy} headingLevel={2} />
          </section>

          {drafts ? (
            <section aria-labelledby="draft-heading">
              <h2 id="draft-heading">Edit a draft</h2>
              <DraftForm
                key={`${editing}-${(base ?? loaded.value.active).version}`}
                base={base ?? loaded.value.active}
                onCreated={(version) => {
                  setBase(null);
                  setEditing((n) => n + 1);
                  changed(
                    `Draft version ${version} saved. Simulate it below, then activate it or make it the challenger.`,
                  );
                  setTimeout(() => document.getElementById(`version-${version}`)?.scrollIntoView(), 300);
                }}
              />
            </section>
          ) : null}

          <ChallengerSection list={loaded.value} onChanged={changed} />
          <History
            list={loaded.value}
            onChanged={changed}
            onEdit={(v) => {
              setBase(v);
              setEditing((n) => n + 1);
              document.getElementById('draft-heading')?.scrollIntoView();
            }}
          />
        </>
      ) : null}
    </div>
  );
}
