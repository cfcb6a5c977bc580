// Tests against the real broker wait for consumer groups to form: give them room.
jest.setTimeout(Number(process.env.LOAN_TEST_TIMEOUT_MS ?? 90_000));
