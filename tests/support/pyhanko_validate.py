"""Validates the signatures of a PDF with pyHanko, a validator Signet shares no code with.

Usage: python3 pyhanko_validate.py [--offline-ltv] FILE.pdf ROOT.pem [ROOT.pem ...]
Prints one JSON object per embedded signature: intact, valid, trusted, coverage,
modification level, pyHanko's own summary and, when the signature has a timestamp token, the
timestamp's own verdict and time. With --offline-ltv, revocation is checked strictly
("hard-fail": a certificate that names a revocation service must have an answer from it) with
no fetching, from the revocation data in the file's DSS only: what a validator can do years
later, when the authorities' servers are gone. Exit status 0 whatever the verdict: the test
reads the verdict.
"""

import json
import sys

from pyhanko.keys import load_cert_from_pemder
from pyhanko.pdf_utils.reader import PdfFileReader
from pyhanko.sign.validation import validate_pdf_signature
from pyhanko.sign.validation.dss import DocumentSecurityStore
from pyhanko.sign.validation.errors import NoDSSFoundError
from pyhanko_certvalidator import ValidationContext


def main(path, roots, offline_ltv):
    trust_roots = [load_cert_from_pemder(root) for root in roots]
    with open(path, "rb") as handle:
        reader = PdfFileReader(handle, strict=False)
        if offline_ltv:
            strict = {"trust_roots": trust_roots, "allow_fetching": False,
                      "revocation_mode": "hard-fail"}
            try:
                context = DocumentSecurityStore.read_dss(reader).as_validation_context(strict)
            except NoDSSFoundError:  # no DSS: the same strictness with no revocation data
                context = ValidationContext(crls=[], ocsps=[], **strict)
        else:
            context = ValidationContext(trust_roots=trust_roots)
        signatures = reader.embedded_signatures
        print(json.dumps({"signatures": len(signatures)}))
        for signature in signatures:
            status = validate_pdf_signature(signature, context, ts_validation_context=context)
            timestamp = status.timestamp_validity
            print(json.dumps({
                "timestamp": None if timestamp is None else {
                    "intact": timestamp.intact,
                    "valid": timestamp.valid,
                    "trusted": timestamp.trusted,
                    "time": timestamp.timestamp.isoformat(),
                },
                "field": signature.field_name,
                "intact": status.intact,
                "valid": status.valid,
                "trusted": status.trusted,
                "coverage": str(status.coverage),
                "modification_level": str(status.modification_level),
                "bottom_line": status.bottom_line,
                "summary": status.summary(),
            }))


if __name__ == "__main__":
    args = sys.argv[1:]
    offline_ltv = "--offline-ltv" in args
    args = [arg for arg in args if arg != "--offline-ltv"]
    main(args[0], args[1:], offline_ltv)
