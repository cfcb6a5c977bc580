import { EventNames, Limits } from '@loan/contracts';

/**
 * The guides beside the reference: Markdown that the reference page renders above the
 * operations (the document's `info.description`), so they travel with the document.
 */

const quickStart = `## Quick start (sandbox)

Locally \`npm start\` runs the whole service with the sandbox provider and credit bureau and prints
\`READY gateway=<url>\`. Every call below is also in the SDK (\`@loan/client\`) and in
\`examples/lender-backend\`, which does all of it in one script.

1. **Get an account.** The operator creates it with the admin API (\`POST /admin/clients\`) and
   hands you \`apiKey\` (send it as \`x-api-key\`) and \`webhookSecret\` (verify webhooks with it).
   Both are shown once.
2. **Open an application**: \`POST /api/applications/initiate\` with the applicant and the loan.
   Keep \`applicationId\`; send the applicant's browser to \`widgetUrl\`.
3. **The applicant links a bank account** in the widget. In the sandbox a script can do it:
   \`POST <origin of widgetUrl>/sandbox/link\` with \`{"widgetUrl": "...", "persona": "salaried"}\`.
   You receive \`account.linked\`, then \`account.enrichment_ready\`.
4. **Finalize linking**: \`POST /api/applications/{id}/finalize-linking\`. You receive
   \`application.ready_for_analysis\` once every account is enriched.
5. **Analyze**: \`POST /api/applications/{id}/analyze\`. The decision arrives as
   \`application.decision\` (or \`application.failed\`); \`GET /api/applications/{id}\` shows it too.

\`\`\`sh
curl -s -X POST "$BASE/api/applications/initiate" -H "x-api-key: $API_KEY" \\
  -H 'content-type: application/json' \\
  -d '{"firstName":"Chinedu","lastName":"Okonkwo","email":"chinedu@example.com","bvn":"22200000001",
       "amount":300000,"tenor":6,"interestRate":5,"idempotencyKey":"'"$(node -p 'crypto.randomUUID()')"'"}'
\`\`\`

\`\`\`ts
import { LoanClient } from '@loan/client';
const loans = new LoanClient({ baseUrl: process.env.BASE!, apiKey: process.env.API_KEY! });
const { applicationId, widgetUrl } = await loans.initiate({ firstName: 'Chinedu', lastName: 'Okonkwo',
  email: 'chinedu@example.com', amount: 300000, tenor: 6, interestRate: 5 }); // idempotencyKey generated
\`\`\``;

const signatures = `## Verifying webhook signatures

Every event is a \`POST\` of JSON to your webhook URL with \`x-signature\`: the hex HMAC-SHA256 of
the **raw request body** (the bytes as received, never re-serialised JSON), keyed with your
webhook secret. Compare in constant time and answer 401 when it does not match. After a secret
rotation (\`POST /api/client/rotate-webhook-secret\`, or your operator's admin API) events carry
\`x-signature-previous\` too, signed with the previous secret until the overlap ends: accept a
match of either header with any secret you hold. \`x-event-id\` and \`x-event-name\` repeat the
body's \`id\` and \`event\`. Answer 2xx within 10 seconds; deduplicate on \`id\`.

**Node** (the SDK has it: \`verifyWebhook(rawBody, signature, secrets)\`; with the request's headers it checks the Standard Webhooks signature below)

\`\`\`js
import { createHmac, timingSafeEqual } from 'node:crypto';
// rawBody: the Buffer as received; headers: x-signature and x-signature-previous (either may be
// missing); secrets: your current secret and, during a rotation overlap, the previous one.
function verify(rawBody, headers, secrets) {
  const given = headers.filter((h) => /^[0-9a-f]{64}$/i.test(h ?? '')).map((h) => Buffer.from(h, 'hex'));
  return secrets.some((secret) => {
    const expected = createHmac('sha256', secret).update(rawBody).digest();
    return given.some((signature) => timingSafeEqual(signature, expected));
  });
}
// express: app.post('/webhooks', express.raw({ type: 'application/json' }), (req, res) => {
//   if (!verify(req.body, [req.get('x-signature'), req.get('x-signature-previous')], [SECRET, OLD_SECRET]))
//     return res.sendStatus(401);
\`\`\`

**Python**

\`\`\`python
import hashlib, hmac
def verify(raw_body: bytes, headers: list, secrets: list) -> bool:
    given = [h.lower().encode() for h in headers if h]   # bytes: compare_digest refuses non-ASCII str
    for secret in secrets:
        expected = hmac.new(secret.encode(), raw_body, hashlib.sha256).hexdigest().encode()
        if any(hmac.compare_digest(expected, signature) for signature in given):
            return True
    return False
# Flask:  verify(request.get_data(), [request.headers.get("x-signature"), request.headers.get("x-signature-previous")], [SECRET, OLD_SECRET])
# Django: verify(request.body, [request.headers.get("x-signature"), request.headers.get("x-signature-previous")], [SECRET, OLD_SECRET])
\`\`\`

**PHP**

\`\`\`php
function verify(string $raw, array $headers, array $secrets): bool {
    foreach ($secrets as $secret) {
        $expected = hash_hmac('sha256', $raw, $secret);
        foreach ($headers as $signature) {
            if (is_string($signature) && hash_equals($expected, strtolower($signature))) return true;
        }
    }
    return false;
}
$raw = file_get_contents('php://input');   // Laravel: $request->getContent()
$headers = [$_SERVER['HTTP_X_SIGNATURE'] ?? null, $_SERVER['HTTP_X_SIGNATURE_PREVIOUS'] ?? null];
if (!verify($raw, $headers, [$secret, $previousSecret])) { http_response_code(401); exit; }
\`\`\`

**Java** (17 or later)

\`\`\`java
import javax.crypto.Mac; import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets; import java.security.MessageDigest;
import java.util.HexFormat; import java.util.List;

static boolean verify(byte[] rawBody, List<String> headers, List<String> secrets) throws Exception {
    for (String secret : secrets) {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        byte[] expected = mac.doFinal(rawBody);
        for (String signature : headers) {
            if (signature != null && signature.matches("[0-9a-fA-F]{64}")
                && MessageDigest.isEqual(expected, HexFormat.of().parseHex(signature))) return true;
        }
    }
    return false;
}
// Spring: the body as @RequestBody byte[] (not a parsed object); headers as
// Arrays.asList(request.getHeader("x-signature"), request.getHeader("x-signature-previous"))
\`\`\`
### Standard Webhooks: the signature with its time

Every event also carries the Standard Webhooks headers (standardwebhooks.com): \`webhook-id\` (the
delivery's id, the same on each retry), \`webhook-timestamp\` (Unix seconds of this attempt) and
\`webhook-signature\`: \`v1,\` and the **base64** HMAC-SHA256 of \`<webhook-id>.<webhook-timestamp>.<raw body>\`,
keyed with the same webhook secret as \`x-signature\` (its bytes as issued, \`whsec_\` included);
during a rotation overlap it holds one \`v1,\` signature per secret, space-separated. Refuse a
timestamp more than 5 minutes from your clock: a captured delivery is then useless later, which
\`x-signature\` (the body only) cannot give. A Standard Webhooks library works too: give it
\`whsec_\` + base64 of your secret (in the \`standardwebhooks\` npm package,
\`new Webhook(secret, { format: 'raw' })\`).

**Node** (the SDK: \`verifyWebhook(rawBody, req.headers, secrets)\`)

\`\`\`js
import { createHmac, timingSafeEqual } from 'node:crypto';
function verifyStandard(rawBody, id, timestamp, signatures, secrets) {
  if (!/^\\d+$/.test(timestamp ?? '') || Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return false;
  const given = (signatures ?? '').split(' ').filter((s) => s.startsWith('v1,')).map((s) => Buffer.from(s.slice(3), 'base64'));
  return secrets.some((secret) => {
    const expected = createHmac('sha256', secret).update(\`\${id}.\${timestamp}.\`).update(rawBody).digest();
    return given.some((s) => s.length === expected.length && timingSafeEqual(s, expected));
  });
}
// verifyStandard(req.body, req.get('webhook-id'), req.get('webhook-timestamp'), req.get('webhook-signature'), [SECRET, OLD_SECRET])
\`\`\`

**Python**

\`\`\`python
import base64, hashlib, hmac, time
def verify_standard(raw_body: bytes, msg_id: str, timestamp: str, signatures: str, secrets: list) -> bool:
    if not (timestamp or "").isdigit() or abs(time.time() - int(timestamp)) > 300:
        return False
    given = [s[3:].encode() for s in (signatures or "").split(" ") if s.startswith("v1,")]
    for secret in secrets:
        digest = hmac.new(secret.encode(), f"{msg_id}.{timestamp}.".encode() + raw_body, hashlib.sha256).digest()
        expected = base64.b64encode(digest)
        if any(hmac.compare_digest(expected, s) for s in given):
            return True
    return False
# Flask: verify_standard(request.get_data(), request.headers.get("webhook-id"), request.headers.get("webhook-timestamp"),
#                        request.headers.get("webhook-signature"), [SECRET, OLD_SECRET])
\`\`\`

**PHP**

\`\`\`php
function verifyStandard(string $raw, ?string $id, ?string $timestamp, ?string $signatures, array $secrets): bool {
    if (!ctype_digit((string) $timestamp) || abs(time() - (int) $timestamp) > 300) return false;
    foreach ($secrets as $secret) {
        $expected = 'v1,' . base64_encode(hash_hmac('sha256', "$id.$timestamp.$raw", $secret, true));
        foreach (explode(' ', (string) $signatures) as $signature) {
            if (hash_equals($expected, $signature)) return true;
        }
    }
    return false;
}
// verifyStandard($raw, $_SERVER['HTTP_WEBHOOK_ID'] ?? null, $_SERVER['HTTP_WEBHOOK_TIMESTAMP'] ?? null,
//                $_SERVER['HTTP_WEBHOOK_SIGNATURE'] ?? null, [$secret, $previousSecret])
\`\`\`

**Java** (17 or later)

\`\`\`java
import javax.crypto.Mac; import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets; import java.security.MessageDigest;
import java.util.Base64; import java.util.List;

static boolean verifyStandard(byte[] rawBody, String id, String timestamp, String signatures, List<String> secrets) throws Exception {
    if (timestamp == null || !timestamp.matches("\\\\d{1,12}")
        || Math.abs(System.currentTimeMillis() / 1000 - Long.parseLong(timestamp)) > 300) return false;
    for (String secret : secrets) {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        mac.update((id + "." + timestamp + ".").getBytes(StandardCharsets.UTF_8));
        byte[] expected = mac.doFinal(rawBody);
        for (String signature : signatures == null ? new String[0] : signatures.split(" ")) {
            if (signature.startsWith("v1,")
                && MessageDigest.isEqual(expected, Base64.getDecoder().decode(signature.substring(3)))) return true;
        }
    }
    return false;
}
// Spring: verifyStandard(body, request.getHeader("webhook-id"), request.getHeader("webhook-timestamp"),
//                        request.getHeader("webhook-signature"), List.of(SECRET, OLD_SECRET))
\`\`\``;

const sandbox = `## Sandbox personas and test BVNs

The sandbox links accounts whose statements follow a persona (\`POST /sandbox/link\` with
\`persona\`, or the choice in the widget page; \`GET /sandbox/personas\` lists them):

| persona | bank data |
|---|---|
| \`salaried\` (default) | steady monthly salary from one employer, small savings, never overdrawn |
| \`salaried_high\` | senior salary of about ₦1.2m a month, larger bills and savings |
| \`gig\` | irregular income: many small transfers, POS settlements, cash deposits |
| \`heavy_betting\` | modest salary, a large share of it to betting platforms |
| \`debt_stressed\` | salary eaten by several digital-lender loans, re-borrowed as soon as repaid |
| \`overdrawn\` | spends past the salary into an overdraft; bounced debits |
| \`thin_file\` | account opened under three months ago |
| \`name_mismatch\` | the bank names a different account holder than the applicant |
| \`never_completes\` | links, but enrichment never finishes (\`account.enrichment_failed\` after the timeout) |

The sandbox credit bureau answers by BVN:

| bvn | bureau answer |
|---|---|
| \`22200000001\` | clean file, score 762 |
| \`22200000002\` | delinquent: 96 days past due, a written-off loan |
| \`22200000003\` | no record (thin file) |
| \`22200000004\` | answers too late (bureau timeout) |
| \`22200000005\` | bureau error |
| any other 11 digits | a clean-ish file derived from the BVN, the same every time |
| no \`bvn\` | no bureau lookup |`;

const errors = `## Errors and retries

Every error is JSON \`{"statusCode": 404, "message": "Application not found", "error": "Not Found"}\`;
\`message\` says what to fix. Each operation below lists the statuses it can answer.

| status | when | retry? |
|---|---|---|
| 400 | a field missing or invalid (the message names each), malformed JSON, or the application is in the wrong state | no, fix the request |
| 401 | \`x-api-key\` missing or wrong | no |
| 403 | the \`idempotencyKey\` belongs to another account | no, use another key |
| 404 | no such application (or delivery), a malformed id, or another lender's | no |
| 405 | the path exists but not with this method; \`Allow\` lists the methods it has | no |
| 409 | initiate: the key's application is LINKED, PROCESSING, COMPLETED or FAILED (use a new key); redeliver: already pending; review: another review awaits confirmation, or its maker tries to confirm it | no |
| 413 | body over ${Limits.maxBodyBytes / 1024} KiB | no |
| 415 | a body that is not \`application/json\` | no |
| 429 | rate limit (see below); \`Retry-After\` says when | yes, after \`Retry-After\` |
| 500 | a downstream failure or timeout, or no provider key on your account | yes, 3 times with backoff (1 s, 2 s, 4 s) |

Retrying is safe: \`initiate\` with the same \`idempotencyKey\` never creates a second application
(it answers 201 when it creates one and 200 with \`resumed: true\` when it resumes a
PENDING_LINKING or ABANDONED one); the other operations move an application forward only once. The SDK
generates the key when you do not give one and retries network errors and 5xx with the same key.
Make keys random (a UUID, kept with your loan record), never a loan reference or a counter: keys
are one namespace for every lender, and a key another account used first answers 403.

What the specification leaves open and this service decided: bounds \`amount\` 0 < amount ≤
${Limits.maxAmount.toLocaleString('en-US')} Naira, \`tenor\` 1..${Limits.maxTenor} months, \`interestRate\` 0..${Limits.maxInterestRate} (% a month; 0 is a
promotional loan), \`purpose\` ≤ ${Limits.maxPurpose} characters, \`idempotencyKey\` 1..${Limits.maxIdempotencyKey} characters; optional
fields (\`phone\`, \`bvn\`, \`purpose\`) sent as \`null\` or \`""\` are absent; a resume takes the
applicant and loan of the resuming request and starts a new 24-hour window to link; PROCESSING
always ends (\`application.decision\` or \`application.failed\`, with reason \`analysis_timeout\` when
no outcome came in time).`;

const rateLimits = `## Rate limits

| what | limit | counted per |
|---|---|---|
| \`initiate\` | 20 a minute | account |
| \`analyze\` | 30 a minute | account |
| every other \`/api\` call | 60 a minute | IP address |
| failed authentications (401, 403) | 30 per 5 minutes | IP address |

Windows are fixed 60-second windows shared by every replica. Answers of limited operations carry
\`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\` and \`X-RateLimit-Reset\` (Unix seconds when the
window resets); a 429 carries \`Retry-After\` (seconds). Back off until then, then retry with
exponential backoff.`;

const events = `## Events

Events go to your webhook URL (see *Webhooks* at the end of this page for each body):

| event | when |
|---|---|
| \`account.linked\` | a bank account is linked; its enrichment starts |
| \`account.enrichment_ready\` | an account's income analysis and statement insights are done |
| \`application.ready_for_analysis\` | after finalize-linking, once every account is enriched: call analyze |
| \`account.enrichment_failed\` | an account stayed unenriched for 20 minutes: re-link it with link-account |
| \`application.decision\` | the scored decision |
| \`application.failed\` | analysis could not complete; the reason says why |
| \`application.abandoned\` | no account linked in 24 hours (\`no_link\`) or no analyze 7 days after linking (\`no_analyze\`) |
| \`application.review_completed\` | your reviewer finished a MANUAL_REVIEW decision (not in the original contract; always after its \`application.decision\`) |
| \`application.offer_accepted\` | the applicant accepted the offer through your API (not in the original contract); the cooling-off period ends at \`coolingOffEndsAt\` |
| \`application.offer_declined\` | the applicant declined the offer (not in the original contract) |
| \`application.offer_withdrawn\` | the applicant withdrew an acceptance within its cooling-off period (not in the original contract) |
| \`application.offer_expired\` | the offer stood unanswered past its \`expiresAt\` and can no longer be accepted (not in the original contract) |

Delivery is at least once: deduplicate on \`id\`. A failed delivery (no 2xx within 10 s) is retried
5 times from 10 s with exponential backoff, then marked FAILED; the delivery log
(\`/api/webhooks/deliveries\`) shows every attempt and can redeliver or replay. One application's
events arrive in order: while one of them is being retried, that application's later events wait
until its retries end (delivered or failed); other applications are not held back.

Event names: ${EventNames.map((e) => `\`${e}\``).join(', ')}.`;

const account = `## Your applications and your account

\`GET /api/applications\` lists your applications, newest first, 20 a page (\`limit\` up to 100):
filter with \`status\` (repeat it, or separate states with commas), find one with
\`q=<applicationId or applicantId>\`, and pass \`nextCursor\` back as \`cursor\` for the next
page. A page starts where the previous one ended, so applications opened meanwhile never repeat
or push a row onto the next page.

\`GET /api/client\` shows your webhook URL and the webhook secrets signing now, with the end of
each one's overlap (never a key or secret); \`PATCH /api/client\` with \`{"webhookUrl": ...}\`
changes where events go, with \`{"reviewConfirmationAbove": ...}\` your review threshold, and with
\`{"recordRetentionYears": ...}\` (5, the default and FCCPC's minimum, to 10) how long an ended
application's records are kept: its read shows \`retainedUntil\`, after which it is deleted. \`POST /api/client/rotate-key\` answers a new API key, once: the key that
made the call stops working at once, so store the new one first.
\`POST /api/client/rotate-webhook-secret\` answers a new webhook secret, once; for
\`overlapSeconds\` (24 hours by default) events carry \`x-signature\` with the new secret and
\`x-signature-previous\` with the old one, so your receivers can switch over without missing one.`;

const creditPolicy = `## Your credit policy

Your decisions apply your credit policy on top of the score: band thresholds and what each band
leads to, the debt-service cap, tenors, counter-offers, loan limits, what a thin file, an
unavailable bureau or an identity mismatch leads to, and knock-out rules whose \`code\` your
decisions carry. Until you activate one of your own, the built-in policy (version 0) decides.

1. \`POST /api/policies\` with a policy: a new draft version (a bad one is refused naming every bad field).
2. \`POST /api/policies/{version}/simulate\`: the draft replayed on your latest decided applications
   against the active version (no new bureau or bank-data call, nothing sent).
3. \`POST /api/policies/{version}/challenger\`: the draft decides in the shadow of the active version;
   \`GET /api/policies/challenger/report\` shows where they disagree. Never sent by webhook.
4. \`POST /api/policies/{version}/activate\`: every analysis you ask for from then on is decided by it.
   Each decision names its version in \`policy_version\`.`;

const reviews = `## Reviewing MANUAL_REVIEW decisions

A MANUAL_REVIEW decision is referred to your credit officers (\`manual_review_reasons\` say why).
\`GET /api/reviews\` is the queue: \`status=OPEN\` (the default) lists the referred applications
with no final review yet, \`status=DONE\` the reviewed ones, oldest decision first, with the
reasons, score, ask, the terms scoring would grant and their age (\`ageSeconds\`); pages as the
application list's.

\`POST /api/applications/{id}/review\` records the review:
\`{"outcome": "APPROVED" | "COUNTER_OFFER" | "DECLINED", "terms"?: {"amount", "tenor", "interestRate"}, "reasonCode", "note"?, "reviewer", "override"?}\`.
\`reviewer\` is your own staff id of the officer, recorded as such (the console names its
signed-in user). APPROVED grants the ask unless \`terms\` are given, COUNTER_OFFER needs
\`terms\`, DECLINED takes none. Terms are priced by the scorecard's own formula; a monthly
payment beyond the applicant's repayment capacity (a third of verified monthly income less existing
repayments) needs \`override: true\` and a \`note\`. The application stays COMPLETED; its
\`GET /api/applications/{id}\` shows the review. A second review of an application whose review
awaits confirmation is a 409; one with a final review, a 400.

Maker-checker: set \`reviewConfirmationAbove\` (Naira) with \`PATCH /api/client\`. A review
granting more than that stays PENDING_CONFIRMATION until another reviewer calls
\`POST /api/applications/{id}/review/confirm\` with \`{"reviewer"}\`; the maker confirming
their own review is a 409 (staff ids compared regardless of case). Once a review is final,
\`application.review_completed\` is sent with the outcome, the terms (\`approval_details\`, null
for a decline), the maker as \`reviewer\`, the reason code, the note and \`reviewedAt\`, always
after the application's \`application.decision\`.

### Contest (NDPA s.37)

A person subject to an automated decision may ask for a human, give their view and contest it.
For a DECLINED or COUNTER_OFFER decision (the scorecard's, or your final review's),
\`POST /api/applications/{id}/contest\` with \`{"statement"}\`, the applicant's own words, opens
the contest: the application goes back to the queue (its item carries \`contest\`), the review it
had is kept as the contest's \`priorReview\`, and its new review always awaits a second
reviewer, whatever it grants. When that review is final the contest is RESOLVED and
\`application.review_completed\` carries its \`contestId\`. Every read of the application says
whether it can be contested and how (\`contestAvailability\`); an APPROVED decision, one still
under review, or one already contested cannot be.`;

const offers = `## Offers: acceptance and cooling-off

An APPROVED or COUNTER_OFFER decision (the scorecard's, or your final review's) is an offer, not
a loan. \`GET /api/applications/{id}\` shows it as \`offer\`: its terms and key facts, \`madeAt\`
and \`expiresAt\`: \`validityDays\` later (your policy's \`offer.validityDays\`, 2 to 30, 7 by
default), and never before the end of the second working day in Lagos after it was made (the
two working days the CBN gives to review a contract). Send the applicant's answer with
\`POST /api/applications/{id}/offer\` and \`{"response": "ACCEPTED" | "DECLINED"}\` while it is
OPEN; after \`expiresAt\` it is EXPIRED, \`application.offer_expired\` is sent, and an answer is
a 400. An acceptance starts a cooling-off period to the end of the \`coolingOffWorkingDays\`th
working day in Lagos (your policy's \`offer.coolingOffWorkingDays\`, 3 to 14, 3 by default;
weekends and Nigerian public holidays do not count: \`coolingOffEndsAt\`), in which
\`{"response": "WITHDRAWN"}\` cancels it without cost. Each answer sends its event; the same
answer again is answered as the first; nothing is accepted automatically. Both periods are
fixed from the policy version of the decision when the offer is made (\`offer_terms\` on the
decision): a later policy change does not move them. While a review or a contest is under way
there is no offer, and an accepted offer is not contested.`;

const decisionRecords = `## Decision records

\`GET /api/applications/{id}/decision-record\` answers \`{applicationId, record, kid, jwks}\`:
\`record\` is a compact JWS of the decision (EdDSA, Ed25519) the applicant can carry, with the
ask, a summary of the inputs (banks, last four digits, months and average flows; never a
transaction or a name), the score and its parts, the reasons, the terms and their key facts,
the policy and scorecard versions, the final review and any contest. Verify it offline with the
public key set at \`/.well-known/jwks.json\` and any JOSE library; in JavaScript with jose:

\`\`\`js
import { createRemoteJWKSet, compactVerify } from 'jose';
const keys = createRemoteJWKSet(new URL('https://gateway.example/.well-known/jwks.json'));
const { payload } = await compactVerify(record, keys, { algorithms: ['EdDSA'] });
\`\`\`

in Python with PyJWT:

\`\`\`python
import jwt
key = jwt.PyJWKClient("https://gateway.example/.well-known/jwks.json").get_signing_key_from_jwt(record)
claims = jwt.decode(record, key.key, algorithms=["EdDSA"])
\`\`\`

Both are in the repository's \`examples/decision-record\`.`;

export const guides = [
  quickStart,
  signatures,
  sandbox,
  errors,
  rateLimits,
  events,
  reviews,
  offers,
  decisionRecords,
  account,
  creditPolicy,
].join('\n\n');
