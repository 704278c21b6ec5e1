"""Serve a built site on 127.0.0.1 the way GitHub Pages serves it: under the path of `site_url`,
text gzip-compressed, notebooks as a download type, and the site's root 404.html (status 404) for
any missing path under it. Used by tests/test_browser.py and
tools/bench_lighthouse.py; run it alone to look at a build: python -m tools.static_site SITE_DIR"""
import contextlib
import functools
import gzip
import html.parser
import http.server
import io
import re
import socket
import sys
import threading
from pathlib import Path
from urllib.parse import unquote, urlsplit

# Not in Python's table everywhere; GitHub Pages (mime-db) serves .ipynb as this type, which
# browsers do not render as a page, so the "Download notebook" link arrives as a file.
TYPES = {".ipynb": "application/x-ipynb+json", ".xml": "application/xml", ".js": "text/javascript",
         ".map": "application/json", ".json": "application/json", ".svg": "image/svg+xml"}
COMPRESSED = re.compile(r"^(text/|application/(json|xml|javascript|x-ipynb\+json)|image/svg)")


class _Canonical(html.parser.HTMLParser):
    """The href of <link rel="canonical">, however the page writes its attributes (minified or not)."""
    href = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "link" and attrs.get("rel") == "canonical" and self.href is None:
            self.href = attrs.get("href")


def base_path(site):
    """The path the site is published under (site_url's path, e.g. /tutorial/), from the build."""
    index = Path(site) / "index.html"
    parser = _Canonical()
    if index.is_file():
        parser.feed(index.read_text(encoding="utf-8"))
    path = urlsplit(parser.href).path if parser.href else "/"
    return path if path.endswith("/") else path + "/"


class Handler(http.server.SimpleHTTPRequestHandler):
    # Persistent connections, as GitHub Pages keeps them (HTTP/2 there): with HTTP/1.0 every request
    # opens a new connection, and Lighthouse charges each one a handshake on its simulated network.
    protocol_version = "HTTP/1.1"
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, **TYPES}
    prefix = "/"
    compress = True

    def translate_path(self, path):
        return super().translate_path("/" + urlsplit(path).path[len(self.prefix):])

    def send_head(self):
        path = unquote(urlsplit(self.path).path)
        if not path.startswith(self.prefix):
            self.send_error(404, "outside the published path " + self.prefix)
            return None
        file = Path(self.translate_path(self.path))
        if file.is_dir():
            if not path.endswith("/"):
                return super().send_head()  # a redirect to the folder, slash added
            file = file / "index.html"
        if not file.is_file():
            return self._not_found()
        if (not self.compress or "gzip" not in self.headers.get("Accept-Encoding", "")
                or not path.endswith(("/", file.name))):
            return super().send_head()  # no gzip
        kind = self.guess_type(str(file))
        if not COMPRESSED.match(kind):
            return super().send_head()
        return self._send(200, file, kind, gzipped=True)

    def _not_found(self):
        """GitHub Pages answers a missing path with the site's root 404.html, whatever folder the path
        is in (a page that wants another language's text must find it out itself)."""
        page = Path(self.directory) / "404.html"
        if not page.is_file():
            self.send_error(404)
            return None
        return self._send(404, page, "text/html", gzipped=self.compress and "gzip" in self.headers.get("Accept-Encoding", ""))

    def _send(self, code, file, kind, gzipped):
        body = _gzipped(file, file.stat().st_mtime_ns) if gzipped else file.read_bytes()
        self.send_response(code)
        self.send_header("Content-Type", kind + ("; charset=utf-8" if kind.startswith("text/") else ""))
        if gzipped:
            self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        return io.BytesIO(body)

    def send_response(self, code, message=None):
        self.status = code
        super().send_response(code, message)

    def end_headers(self):
        if self.status < 400:
            self.send_header("Cache-Control", "max-age=600")  # what GitHub Pages sends
        super().end_headers()

    def log_message(self, *args):
        pass


@functools.lru_cache(maxsize=256)
def _gzipped(file, mtime):
    return gzip.compress(file.read_bytes(), compresslevel=6, mtime=0)


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        if not isinstance(sys.exc_info()[1], ConnectionError):  # a browser that hung up: not news
            super().handle_error(request, client_address)


def free_port():
    """A port of 127.0.0.1 that nothing listens on now (to build a site for, then serve it on)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def served(site, compress=True, port=0, prefix=None):
    """Serve `site` on 127.0.0.1 (on a free port by default); yields the URL of its home page. Under
    `prefix`, or else the path the built site says it is published under."""
    prefix = prefix or base_path(site)
    handler = type("SiteHandler", (Handler,), {"prefix": prefix, "compress": compress})
    server = Server(("127.0.0.1", port), functools.partial(handler, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}{prefix}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


if __name__ == "__main__":
    if len(sys.argv) != 2 or not Path(sys.argv[1], "index.html").is_file():
        sys.exit("usage: python -m tools.static_site SITE_DIR  (a built site, with index.html)")
    with served(sys.argv[1]) as url:
        print(f"serving {sys.argv[1]} at {url} (Ctrl-C stops)", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            threading.Event().wait()
