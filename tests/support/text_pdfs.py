"""Writes the PDFs the text tags and anchors tests read, with reportlab (a PDF writer that
shares no code with Signet): `python3 text_pdfs.py <dir> <font.ttf>`.

- anchors.pdf: page 1 (Letter) with "Tenant signature:" drawn in three runs (Helvetica, no
  /Widths), "Landlord signature:" twice in an embedded TrueType subset with a ToUnicode map;
  page 2 (A4) with "Witness signature:". qpdf turns page 2 a quarter (anchors-rotated.pdf).
- tags.pdf: tags for two named roles and a numbered one, one split over runs, one in the
  TrueType font; tags-bad.pdf: a tag that does not parse, on page 2.
"""
import sys

from reportlab.lib.pagesizes import A4, letter
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen import canvas

out, ttf = sys.argv[1], sys.argv[2]
pdfmetrics.registerFont(TTFont("Noto", ttf))


def runs(c, x, y, parts, font="Helvetica", size=12):
    """Draws `parts` one after the other, each its own text object."""
    for part in parts:
        c.setFont(font, size)
        c.drawString(x, y, part)
        x += pdfmetrics.stringWidth(part, font, size)


c = canvas.Canvas(f"{out}/anchors.pdf", pagesize=letter)
c.drawString(72, 750, "Lease agreement")
runs(c, 72, 600, ["Tenant ", "sig", "nature:"])
c.setFont("Noto", 11)
c.drawString(300, 500, "Landlord signature:")
c.drawString(300, 300, "Landlord signature:")
c.showPage()
c.setPageSize(A4)
c.setFont("Times-Roman", 14)
c.drawString(100, 400, "Witness signature:")
c.showPage()
c.save()

c = canvas.Canvas(f"{out}/tags.pdf", pagesize=letter)
c.setFont("Helvetica", 10)
c.drawString(72, 700, "Tenant:")
runs(c, 120, 700, ["{{signa", "ture:Tenant}}"], size=10)
c.drawString(72, 650, "Date: {{date:Tenant;label=Signed on}}")
c.setFont("Noto", 10)
c.drawString(72, 600, "Landlord: {{initials:Landlord}}")
c.setFont("Helvetica", 10)
c.drawString(72, 550, "Witness: {{text:3;width=120;height=20}}")
c.drawString(72, 100, "Keep this line where it is.")
c.showPage()
c.save()

c = canvas.Canvas(f"{out}/tags-bad.pdf", pagesize=letter)
c.setFont("Helvetica", 10)
c.drawString(72, 700, "{{signature:Tenant}}")
c.showPage()
c.setFont("Helvetica", 10)
c.drawString(72, 700, "{{stamp:Tenant}}")
c.showPage()
c.save()
