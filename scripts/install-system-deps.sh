#!/usr/bin/env bash
# Installs the Debian packages some features use, when missing: poppler-utils (pdf2image renderer),
# tesseract-ocr with English and Simplified Chinese (OCR; RapidOCR is the pip-only fallback),
# fonts-wqy-microhei (CJK test PDFs) and chromium (browser tests of the viewer).
# Without root or apt it only reports what is missing: docrag still runs, those features say so.
set -u
need=()
command -v pdftoppm >/dev/null 2>&1 || need+=(poppler-utils)
command -v tesseract >/dev/null 2>&1 || need+=(tesseract-ocr tesseract-ocr-eng tesseract-ocr-chi-sim)
[ -e /usr/share/fonts/truetype/wqy/wqy-microhei.ttc ] || need+=(fonts-wqy-microhei)
if [ "${DOCRAG_SKIP_BROWSER:-0}" != 1 ]; then command -v chromium >/dev/null 2>&1 || need+=(chromium); fi
[ ${#need[@]} -eq 0 ] && exit 0
SUDO=""
if [ "$(id -u)" != 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then SUDO="sudo -n"; else
    echo "docrag: missing system packages (install them for full features): ${need[*]}" >&2; exit 0; fi
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "docrag: no apt-get; please install: ${need[*]}" >&2; exit 0
fi
echo "docrag: installing system packages: ${need[*]}" >&2
$SUDO apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null \
  || echo "docrag: apt-get could not install ${need[*]}; related features will report what is missing" >&2
exit 0
