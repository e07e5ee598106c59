"""Writes a PDF whose pages are laid out every way the placement tests cover, made by tools that
share no code with Signet: reportlab draws the pages (mixed sizes, each with a marker word
"Anchor<n>"), then qpdf turns and crops them and moves boxes around the page tree.

Usage: placement_pdf.py <out.pdf>

Pages, 1-based:
  1 US Letter, as it comes
  2 A4 turned a quarter (/Rotate 90)
  3 US Letter upside down (/Rotate 180)
  4 US Legal turned three quarters (/Rotate 270)
  5 US Letter cropped (a CropBox inside the MediaBox)
  6 a MediaBox not at the origin ([100 150 712 942])
  7 US Letter cropped and turned a quarter
  8 no box or rotation of its own: MediaBox [0 0 500 700] and /Rotate 270 inherited from the
    page tree's root
"""

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from reportlab.lib.pagesizes import A4, LEGAL, LETTER
from reportlab.pdfgen import canvas

# (page size drawn by reportlab, where the marker's baseline starts in user space,
#  MediaBox override, CropBox, Rotate)
PAGES = [
    (LETTER, (90, 600), None, None, 0),
    (A4, (120, 500), None, None, 90),
    (LETTER, (300, 200), None, None, 180),
    (LEGAL, (200, 800), None, None, 270),
    (LETTER, (150, 300), None, [50, 60, 562, 700], 0),
    ((900, 1100), (250, 700), [100, 150, 712, 942], None, 0),
    (LETTER, (200, 400), None, [40, 80, 580, 760], 90),
    ((500, 700), (100, 450), None, None, None),
]
INHERITED_MEDIA_BOX = [0, 0, 500, 700]
INHERITED_ROTATE = 270


def draw(path):
    pdf = canvas.Canvas(str(path))
    for number, (size, (x, y), _, _, _) in enumerate(PAGES, start=1):
        pdf.setPageSize(size)
        pdf.setFont("Helvetica", 14)
        pdf.drawString(x, y, f"Anchor{number}")
        # Some text around it, so that a box off by a little is seen over other words.
        pdf.setFont("Helvetica", 9)
        pdf.drawString(x, y - 30, f"Under the anchor of page {number}")
        pdf.drawString(x, y + 30, f"Over the anchor of page {number}")
        pdf.showPage()
    pdf.save()


def qpdf_json(path):
    out = subprocess.run(
        ["qpdf", "--json=2", "--json-key=qpdf", str(path)],
        check=True,
        capture_output=True,
    ).stdout
    return json.loads(out)["qpdf"][1]


def reshape(drawn, out):
    objects = qpdf_json(drawn)
    pages_json = subprocess.run(
        ["qpdf", "--json=2", "--json-key=pages", str(drawn)],
        check=True,
        capture_output=True,
    ).stdout
    page_refs = [page["object"] for page in json.loads(pages_json)["pages"]]
    trailer = objects["trailer"]["value"]
    catalog = objects["obj:" + trailer["/Root"]]["value"]
    root_ref = catalog["/Pages"]
    changed = {}
    for (_, _, media, crop, rotate), ref in zip(PAGES, page_refs):
        page = dict(objects["obj:" + ref]["value"])
        if media is not None:
            page["/MediaBox"] = media
        if crop is not None:
            page["/CropBox"] = crop
        if rotate is None:
            page.pop("/MediaBox", None)
            page.pop("/Rotate", None)
        else:
            page["/Rotate"] = rotate
        changed["obj:" + ref] = {"value": page}
    root = dict(objects["obj:" + root_ref]["value"])
    root["/MediaBox"] = INHERITED_MEDIA_BOX
    root["/Rotate"] = INHERITED_ROTATE
    changed["obj:" + root_ref] = {"value": root}
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as update:
        json.dump({"qpdf": [{"jsonversion": 2, "pushedinheritedpageresources": False,
                             "calledgetallpages": False, "maxobjectid": 0}, changed]}, update)
    subprocess.run(
        ["qpdf", str(drawn), f"--update-from-json={update.name}", str(out)], check=True
    )
    Path(update.name).unlink()


def main():
    out = Path(sys.argv[1])
    with tempfile.TemporaryDirectory() as scratch:
        drawn = Path(scratch) / "drawn.pdf"
        draw(drawn)
        reshape(drawn, out)


if __name__ == "__main__":
    main()
