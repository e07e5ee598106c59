#!/usr/bin/env bash
# Refresh the vendored pdf.js: scripts/vendor-pdfjs.sh 5.6.205
set -euo pipefail
cd "$(dirname "$0")/.."
version="${1:?usage: scripts/vendor-pdfjs.sh VERSION}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent "pdfjs-dist@$version" >/dev/null && tar xzf pdfjs-dist-*.tgz)
cp "$work/package/build/pdf.min.mjs" "$work/package/build/pdf.worker.min.mjs" "$work/package/LICENSE" api/static/pdfjs/
sed -i "s/\`pdfjs-dist\` [0-9.]*/\`pdfjs-dist\` $version/" api/static/pdfjs/README.md
echo "pdf.js $version vendored in api/static/pdfjs/"
