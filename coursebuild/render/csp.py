"""No script runs on a page but the site's own files: a Content-Security-Policy, and the templates'
inline scripts moved into files.

Content is sanitized (sanitize.py); the policy is the second line, for whatever an allowlist might
let through: `script-src 'self'` without 'unsafe-inline' runs no inline script and no event-handler
attribute. GitHub Pages sets no response headers, so the policy is a <meta http-equiv> tag, put first
in <head>, before any script. The inline scripts of the theme and of overrides/ (Material's
__md_scope helpers, the palette, the start after the first paint, the questions' class, the 404
redirect) move, each in its place, into assets/javascripts/inline/<hash>.js: a script element with a
src runs at the same moment as the inline one did. By then content holds no script (sanitized), so
every inline script left on the page is the build's own. Styles stay inline (the pages' trimmed CSS
is inlined: coursebuild/assets/trim_css.py), and images may be data: URLs (Material's icons, outputs).

The live preview gets no policy: MkDocs' server injects its live-reload script inline.
"""
import hashlib
import re
from pathlib import Path

from coursebuild import course

POLICY = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
          "font-src 'self' data:; object-src 'none'; base-uri 'self'; form-action 'self'")
META = f'<meta http-equiv="Content-Security-Policy" content="{POLICY}">'
FOLDER = "assets/javascripts/inline"

SCRIPT = re.compile(r"<script(\s[^>]*)?>(.*?)</script>", re.S | re.I)
NOT_SCRIPT = re.compile(r"\b(src|type)\s*=", re.I)  # has a file already, or is data (JSON, text/plain)
JS_TYPE = re.compile(r"\btype\s*=\s*[\"']?(text/javascript|module)\b", re.I)
BASE = re.compile(r'<script id="__config" type="application/json">.*?"base":\s*"([^"]*)"', re.S)
HEAD = re.compile(r"<head[^>]*>", re.I)


def strict(output, config, serving=False, name="page"):
    """The page with its inline scripts in files and (not while serving) the policy first in <head>."""
    base = BASE.search(output)
    if base is None:
        raise ValueError(f"{name}: Material's __config (and its base URL) is not in the page; "
                         "coursebuild/render/csp.py must learn this Material version")
    prefix = base[1].rstrip("/") + "/" if base[1] not in ("", ".") else ""

    def moved(match):
        attributes, body = match[1] or "", match[2]
        if not body.strip() or (NOT_SCRIPT.search(attributes) and not JS_TYPE.search(attributes)):
            return match[0]
        file = f"{FOLDER}/{hashlib.sha256(body.encode()).hexdigest()[:12]}.js"
        target = Path(config.site_dir) / file
        if not target.exists():
            course.write_atomic(target, body)
        return f'<script src="{prefix}{file}"></script>'

    output = SCRIPT.sub(moved, output)
    if serving:
        return output
    head = HEAD.search(output)
    if head is None:
        raise ValueError(f"{name}: no <head> to put the Content-Security-Policy in")
    return output[:head.end()] + META + output[head.end():]
