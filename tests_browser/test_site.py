"""The static site of ``make book`` (build/site/) in headless Chromium.

build/site is served over http on 127.0.0.1 and crawled from index.html, each page once: every
page loads with no console error and no uncaught exception, every ``<img>`` has a natural width
after load, and every internal link (an ``href`` not starting with http(s): or mailto:, its
#fragment stripped) answers HTTP 200. The test fails with the list of offenders.

``test_crawler_flags_a_broken_site`` checks the crawler itself on a small throwaway site.
"""

from __future__ import annotations

import re
import urllib.error
import urllib.request
from collections import deque
from pathlib import Path
from urllib.parse import urldefrag, urlsplit, urlunsplit

from conftest import serve_directory

# hrefs that point off the site (or are no link at all) and are not checked.
EXTERNAL = re.compile(r"^(https?:|mailto:|//|javascript:|data:|tel:)", re.IGNORECASE)

PAGE_JS = """() => ({
  brokenImages: Array.from(document.images)
    .filter(img => !(img.complete && img.naturalWidth > 0))
    .map(img => img.getAttribute('src') || img.currentSrc || '(no src)'),
  links: Array.from(document.querySelectorAll('a[href]'))
    .map(a => [a.getAttribute('href'), a.href]),
})"""

# Lazy images load only when scrolled to: make them eager, then wait for every image to settle.
IMAGES_SETTLED_JS = """() => {
  for (const img of document.querySelectorAll('img[loading="lazy"]')) img.loading = 'eager';
  return Array.from(document.images).every(img => img.complete);
}"""


def _page_key(url: str) -> str:
    """``url`` without #fragment and ?query: one static file, visited once."""
    parts = urlsplit(urldefrag(url)[0])
    return urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))


def _http_status(url: str) -> tuple[int, str]:
    """HTTP status and content type of a GET of ``url``."""
    try:
        with urllib.request.urlopen(url, timeout=30) as resp:
            return resp.status, resp.headers.get_content_type()
    except urllib.error.HTTPError as err:
        return err.code, ""


def crawl(context, base_url: str, start: str = "index.html") -> tuple[list[str], list[str]]:
    """Crawl the site at ``base_url`` from ``start`` in the browser ``context``.

    Returns
    -------
    (pages, problems)
        The page URLs visited (each once) and one line per offender: console error, page error,
        HTTP error, broken image or broken internal link, each naming its page.
    """
    start_url = base_url + start
    queue: deque[str] = deque([start_url])
    seen_pages = {_page_key(start_url)}
    link_status: dict[str, tuple[int, str]] = {}
    pages: list[str] = []
    problems: list[str] = []
    page = context.new_page()
    errors: list[str] = []

    def on_console(msg) -> None:
        where = (msg.location or {}).get("url", "")
        # The browser asks for /favicon.ico on its own; a site without one is no broken page.
        if msg.type == "error" and not where.endswith("/favicon.ico"):
            errors.append(f"console error: {msg.text}" + (f" ({where})" if where else ""))

    page.on("console", on_console)
    page.on("pageerror", lambda exc: errors.append(f"uncaught exception: {exc}"))
    try:
        while queue:
            url = queue.popleft()
            name = url.removeprefix(base_url) or "/"
            pages.append(url)
            errors.clear()
            response = page.goto(url, wait_until="load", timeout=60_000)
            if response is None or response.status != 200:
                problems.append(f"{name}: HTTP {response.status if response else 'no response'}")
                continue
            page.wait_for_function(IMAGES_SETTLED_JS, timeout=30_000, polling=100)
            page.wait_for_timeout(100)  # late console messages of the load
            found = page.evaluate(PAGE_JS)
            problems += [f"{name}: {err}" for err in errors]
            problems += [f"{name}: image not loaded (naturalWidth 0): {src}" for src in found["brokenImages"]]
            for raw, absolute in found["links"]:
                raw = raw.strip()
                if not raw or raw.startswith("#") or EXTERNAL.match(raw):
                    continue
                key = _page_key(absolute)
                if not key.startswith(base_url):
                    problems.append(f"{name}: link leaves the site: {raw}")
                    continue
                if key not in link_status:
                    link_status[key] = _http_status(key)
                status, content_type = link_status[key]
                if status != 200:
                    problems.append(f"{name}: broken link {raw} (HTTP {status})")
                elif content_type == "text/html" and key not in seen_pages:
                    seen_pages.add(key)
                    queue.append(key)
    finally:
        page.close()
    return pages, problems


def test_site_pages_images_and_links(context, site_url, browser_timings, screenshot_dir):
    """(a) Every page of build/site loads cleanly, shows its images, and links only to real files.

    Also saves the index page's first screen as build/browser/site_index.png (the README's
    screenshot is a copy of it).
    """
    import time

    start = time.monotonic()
    pages, problems = crawl(context, site_url)
    browser_timings[f"site crawl ({len(pages)} pages)"] = time.monotonic() - start
    assert len(pages) > 1, f"only {pages} reached from index.html: the index links to no page"
    assert not problems, f"{len(problems)} problems on {len(pages)} pages:\n" + "\n".join(problems)
    page = context.new_page()
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(site_url + "index.html", wait_until="load")
    page.screenshot(path=str(screenshot_dir / "site_index.png"))
    page.close()


def _write(path: Path, text: str | bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)


# A 1x1 PNG.
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360f8cf000000030101001b1e2cd10000000049454e44ae426082"
)


def test_crawler_flags_a_broken_site(context, tmp_path):
    """The crawler visits each page once and reports each kind of offender (throwaway site)."""
    page = "<html><head><title>{0}</title></head><body>{1}</body></html>"
    _write(tmp_path / "img" / "ok.png", PNG)
    _write(
        tmp_path / "index.html",
        page.format(
            "index",
            (
                '<img src="img/ok.png"><a href="good.html#top">good</a> <a href="good.html?x=1">again</a>'
                '<a href="sub/">sub</a> <a href="https://example.org/">ext</a> <a href="mailto:a@b.c">m</a>'
                '<a href="#frag">frag</a> <a href="img/ok.png">png</a> <a href="bad.html">bad</a>'
            ),
        ),
    )
    _write(tmp_path / "good.html", page.format("good", '<img src="img/ok.png"><a href="index.html">i</a>'))
    _write(
        tmp_path / "sub" / "index.html",
        page.format(
            "sub",
            (
                '<img src="../img/missing.png"><a href="../nothere.ipynb">nb</a>'
                "<script>console.error('boom'); undefinedFunction();</script>"
            ),
        ),
    )
    with serve_directory(tmp_path) as url:
        pages, problems = crawl(context, url)
    assert sorted(p.removeprefix(url) for p in pages) == ["good.html", "index.html", "sub/"]
    text = "\n".join(problems)
    assert "index.html: broken link bad.html (HTTP 404)" in text
    assert "sub/: broken link ../nothere.ipynb (HTTP 404)" in text
    assert "sub/: image not loaded (naturalWidth 0): ../img/missing.png" in text
    assert "sub/: console error: boom" in text
    assert "sub/: uncaught exception:" in text and "undefinedFunction" in text
    assert "example.org" not in text and "mailto" not in text
    assert not [p for p in problems if p.startswith(("index.html", "good.html")) and "bad.html" not in p]
