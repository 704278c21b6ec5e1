"""No script runs on a page but the build's own: a Content-Security-Policy that allows the site's files
and, by their hashes, the templates' small inline scripts.

Content is sanitized (sanitize.py); the policy is the second line, for whatever an allowlist might
let through: `script-src 'self'` without 'unsafe-inline' runs no inline script and no event-handler
attribute. GitHub Pages sets no response headers, so the policy is a <meta http-equiv> tag, put first
in <head>, before any script. The inline scripts of the theme and of overrides/ (Material's
__md_scope helpers, the palette, the start after the first paint, the questions' class, the 404
redirect) move, each in its place, into assets/javascripts/inline/<hash>.js: a script element with a
src runs at the same moment as the inline one did. By then content holds no script (sanitized), so
every inline script left on the page is the build's own. Styles stay inline (the pages' trimmed CSS
is inlined: coursebuild/assets/trim_css.py), and images may be data: URLs (Material's icons, outputs).

Once the site's scripts and pages are minified (coursebuild/assets/), hashed() puts each of these
small scripts back inline and names it in the page's policy by its SHA-256 hash (CSP Level 2): the
browser runs a script only if its text hashes to one the policy lists, so the rule stays "only the
build's own scripts", and the head no longer waits for two to four requests before the first paint
(Lighthouse's render-blocking audit: about 280 ms on a phone).

The live preview gets no policy: MkDocs' server injects its live-reload script inline.
"""
import base64
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


POLICY_TAG = re.compile(r"<meta[^>]*http-equiv=\"?Content-Security-Policy[^>]*>")  # as minify-html left it
MOVED = re.compile(r'<script src="?([^"\s>]*/)?' + re.escape(FOLDER) + r'/([0-9a-f]{12}\.js)"?></script>')


def hashed(site):
    """Each page of the built site with the scripts strict() moved out back inline, and their hashes in
    its policy; the folder of moved scripts removed once no page links it."""
    site = Path(site)
    folder = site / FOLDER
    scripts = {}  # file name -> (its text, its hash as the policy names it), read and hashed once
    linked = False  # a page left with a link to a moved script (one without a policy)

    def script(name):
        if name not in scripts:
            body = (folder / name).read_text(encoding="utf-8").strip()
            if "</script" in body.lower():
                raise ValueError(f"{FOLDER}/{name}: a script that contains '</script' cannot go inline")
            digest = base64.b64encode(hashlib.sha256(body.encode()).digest()).decode()
            scripts[name] = (body, f"'sha256-{digest}'")
        return scripts[name]

    for page in sorted(site.rglob("*.html")):
        html = page.read_text(encoding="utf-8")
        if not POLICY_TAG.search(html):
            linked = linked or FOLDER in html
            continue
        names = [match[2] for match in MOVED.finditer(html)]
        if not names:
            continue
        html = MOVED.sub(lambda match: f"<script>{script(match[2])[0]}</script>", html)
        hashes = " ".join(dict.fromkeys(script(name)[1] for name in names))
        policy = POLICY.replace("script-src 'self'", f"script-src 'self' {hashes}")
        tag = f'<meta http-equiv="Content-Security-Policy" content="{policy}">'
        html = POLICY_TAG.sub(lambda _: tag, html, count=1)
        linked = linked or FOLDER in html
        page.write_text(html, encoding="utf-8")
    if not linked and folder.is_dir():
        for file in folder.iterdir():
            file.unlink()
        folder.rmdir()
