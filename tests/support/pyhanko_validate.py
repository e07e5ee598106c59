"""Validates the signatures of a PDF with pyHanko, a validator Signet shares no code with.

Usage: python3 pyhanko_validate.py FILE.pdf ROOT.pem [ROOT.pem ...]
Prints one JSON object per embedded signature: intact, valid, trusted, coverage,
modification level, pyHanko's own summary and, when the signature has a timestamp token, the
timestamp's own verdict and time. Exit status 0 whatever the verdict: the test
reads the verdict.
"""

import json
import sys

from pyhanko.keys import load_cert_from_pemder
from pyhanko.pdf_utils.reader import PdfFileReader
from pyhanko.sign.validation import validate_pdf_signature
from pyhanko_certvalidator import ValidationContext


def main(path, roots):
    context = ValidationContext(trust_roots=[load_cert_from_pemder(root) for root in roots])
    with open(path, "rb") as handle:
        reader = PdfFileReader(handle, strict=False)
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
    main(sys.argv[1], sys.argv[2:])
