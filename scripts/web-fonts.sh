#!/usr/bin/env bash
# Make the CJK web fonts of the signing page (api/static/fonts/, see its README.md) from the
# face the final PDF draws CJK with (pdf/fonts/wqy-microhei.ttc, face 0). Browsers refuse that
# TrueType collection itself (Chromium's font sanitiser: "FFTM: misaligned table"), so they get
# WOFF2 subsets of it made by fontTools' pyftsubset:
#   wqy-microhei-page.woff2  the CJK characters of the page's own words (the language names and
#                            the signing strings: the zh-Hans, ja and ko ones) and CJK
#                            punctuation: the only CJK file a page without other CJK text
#                            fetches;
#   wqy-microhei.woff2       every CJK character the face has (Han, kana, bopomofo, Hangul,
#                            punctuation, full-width forms), fetched when a name, title or value
#                            has a character the first one lacks.
# Run it again after changing CJK signing strings or language names; the API's unit test
# `page_font_covers_the_page_words` says when it is due. The WOFF2 files it writes are checked in.
#   scripts/web-fonts.sh
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
source scripts/lib.sh

# fontTools' subsetter, with Brotli for WOFF2 (Debian's packages; elsewhere
# `pip install 'fonttools[woff]'`).
if ! command -v pyftsubset >/dev/null; then
    apt_install fonttools python3-brotli
fi

source_font=pdf/fonts/wqy-microhei.ttc
out=api/static/fonts
mkdir -p "$out"

# Every CJK block the face covers; the @font-face of the full file names the same ranges
# (api/src/routes/assets.rs reads them from wqy-microhei.unicode-range).
all_ranges="U+1100-11FF,U+3000-303F,U+3040-30FF,U+3100-312F,U+3130-318F,U+31A0-31BF,U+3400-4DBF,U+4E00-9FFF,U+AC00-D7AF,U+F900-FAFF,U+FF00-FFEF"

# The page's own CJK characters: those of the signing strings of every language and of the
# language names (`Language::name`, i18n/src/lib.rs), with the CJK punctuation and full-width blocks whole, written as
# unicode-range code points.
page_ranges=$(python3 - i18n/locales/*/signing.ftl i18n/src/lib.rs <<'EOF'
import sys
cjk = lambda c: 0x2E80 <= ord(c) <= 0x9FFF or 0xAC00 <= ord(c) <= 0xD7AF or 0xF900 <= ord(c) <= 0xFAFF
chars = set()
for path in sys.argv[1:]:
    chars |= {c for c in open(path, encoding="utf-8").read() if cjk(c)}
chars = sorted(ord(c) for c in chars if not 0x3000 <= ord(c) <= 0x303F)
print(",".join(["U+3000-303F", "U+FF00-FFEF"] + ["U+%04X" % c for c in chars]))
EOF
)

subset() { # output, unicode ranges
    pyftsubset "$source_font" --font-number=0 --unicodes="$2" --flavor=woff2 \
        --output-file="$out/$1" --layout-features='*' --name-IDs='*' --name-languages='*' \
        --no-hinting --drop-tables+=FFTM --notdef-outline
}
log "subsetting $source_font: the page's characters"
subset wqy-microhei-page.woff2 "$page_ranges"
log "subsetting $source_font: every CJK character (about a minute)"
subset wqy-microhei.woff2 "$all_ranges"
echo "$page_ranges" >"$out/wqy-microhei-page.unicode-range"
echo "$all_ranges" >"$out/wqy-microhei.unicode-range"
ls -l "$out"/*.woff2 >&2
