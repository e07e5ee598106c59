"""Writes a PDF with AcroForm fields, made by tools that share no code with Signet: reportlab's
acroform module draws the text fields (with their appearances), qpdf adds a signature field
(reportlab has none) and turns the page a quarter, so that the widgets' rectangles must be
mapped into the page as displayed.

Usage: form_pdf.py <out.pdf>

Fields (fully qualified names), on the one page:
  Company    text, prefilled "Acme Ltd"
  Rent       text, empty, at most 20 characters
  Signature  signature
"""

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from reportlab.lib.pagesizes import LETTER
from reportlab.pdfgen import canvas

SIGNATURE_RECT = [72, 420, 312, 470]


def draw(path):
    pdf = canvas.Canvas(str(path), pagesize=LETTER)
    pdf.setFont("Helvetica", 12)
    pdf.drawString(72, 700, "Company:")
    pdf.drawString(72, 600, "Rent:")
    pdf.drawString(72, 500, "Signature:")
    form = pdf.acroForm
    form.textfield(name="Company", value="Acme Ltd", x=72, y=640, width=240, height=30,
                   fontName="Helvetica", fontSize=12, borderWidth=1)
    form.textfield(name="Rent", value="", maxlen=20, x=72, y=540, width=240, height=30,
                   fontName="Helvetica", fontSize=12, borderWidth=1)
    pdf.showPage()
    pdf.save()


def with_signature_field(drawn, out):
    objects = json.loads(subprocess.run(
        ["qpdf", "--json=2", "--json-key=qpdf", str(drawn)], check=True, capture_output=True,
    ).stdout)["qpdf"][1]
    pages = json.loads(subprocess.run(
        ["qpdf", "--json=2", "--json-key=pages", str(drawn)], check=True, capture_output=True,
    ).stdout)["pages"]
    page_ref = pages[0]["object"]
    trailer = objects["trailer"]["value"]
    catalog_ref = trailer["/Root"]
    catalog = objects["obj:" + catalog_ref]["value"]
    highest = max(int(key.split()[0][4:]) for key in objects if key.startswith("obj:"))
    field_ref = f"{highest + 1} 0 R"
    changed = {
        "obj:" + field_ref: {"value": {
            "/Type": "/Annot", "/Subtype": "/Widget", "/FT": "/Sig", "/T": "u:Signature",
            "/Rect": SIGNATURE_RECT, "/F": 4, "/P": page_ref,
        }},
    }
    page = dict(objects["obj:" + page_ref]["value"])
    annots = page.get("/Annots", [])
    if isinstance(annots, str):  # a reference to an array
        annots = objects["obj:" + annots]["value"]
    page["/Annots"] = list(annots) + [field_ref]
    changed["obj:" + page_ref] = {"value": page}
    form_ref = catalog["/AcroForm"]
    form = dict(objects["obj:" + form_ref]["value"]) if isinstance(form_ref, str) else dict(form_ref)
    form["/Fields"] = list(form.get("/Fields", [])) + [field_ref]
    if isinstance(form_ref, str):
        changed["obj:" + form_ref] = {"value": form}
    else:
        catalog = dict(catalog)
        catalog["/AcroForm"] = form
        changed["obj:" + catalog_ref] = {"value": catalog}
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as update:
        json.dump({"qpdf": [{"jsonversion": 2, "pushedinheritedpageresources": False,
                             "calledgetallpages": False, "maxobjectid": highest}, changed]},
                  update)
    subprocess.run(["qpdf", str(drawn), f"--update-from-json={update.name}", "--rotate=+90",
                    str(out)], check=True)
    Path(update.name).unlink()


def main():
    out = Path(sys.argv[1])
    with tempfile.TemporaryDirectory() as scratch:
        drawn = Path(scratch) / "drawn.pdf"
        draw(drawn)
        with_signature_field(drawn, out)


if __name__ == "__main__":
    main()
