"""Verifies a decision record (a compact JWS) with the service's published key set and prints
its payload as one JSON line; exits 1, saying why, when it does not verify.

    pip install "pyjwt[crypto]"
    python3 verify.py <record> <https://gateway.example/.well-known/jwks.json>

PyJWT fetches the key set and picks the key the record's header names (kid). Decision records
have no `exp` or `aud`: a record states what was decided at `iat`, and does not expire.
"""
import json
import sys

import jwt


def main() -> int:
    if len(sys.argv) != 3:
        print("usage: python3 verify.py <record> <jwks url>", file=sys.stderr)
        return 2
    record, jwks_url = sys.argv[1], sys.argv[2]
    try:
        header = jwt.get_unverified_header(record)
        if header.get("typ") != "loan-decision-record+jws":
            raise jwt.InvalidTokenError(f"not a decision record: {header.get('typ')}")
        key = jwt.PyJWKClient(jwks_url).get_signing_key_from_jwt(record)
        claims = jwt.decode(record, key.key, algorithms=["EdDSA"], options={"verify_aud": False})
    except jwt.PyJWTError as error:
        print(json.dumps({"verified": False, "reason": str(error)}), file=sys.stderr)
        return 1
    print(json.dumps({"verified": True, "kid": header["kid"], "record": claims}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
