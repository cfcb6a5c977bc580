# Loaded by the contract fuzzing (services/gateway/src/contract.e2e.test.ts) through
# SCHEMATHESIS_HOOKS. The bulk upload of outcomes takes NDJSON and CSV, both text: sent as the
# fuzzer sends any text body.
import schemathesis

schemathesis.serializer.alias("application/x-ndjson", "text/plain")
schemathesis.serializer.alias("text/csv", "text/plain")
