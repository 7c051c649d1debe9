"""The static site of ``make book`` (build/site/) in headless Chromium.

build/site is served over http on 127.0.0.1 and crawled from index.html, each page once: every
page loads with no console error and no uncaught exception, every ``<img>`` has a natural width
after load, every internal link (an ``href`` not starting with http(s): or mailto:, its
#fragment stripped) answers HTTP 200, and no request of the browser leaves the site (every
request is watched; the browser resolves no host but 127.0.0.1, so none can reach the network).
The test fails with the list of offenders.

The book look (sphinx-book-theme) on a real page, :data:`PAGE` (headings, code cells, figures):
the navigation sidebar lists every notebook page under its paper's caption, with the notebook's
first heading as its title; the secondary sidebar "On this page" lists the page's sections; a
code cell's source collapses and expands while its outputs stay; a figure of the outputs is
(nearly) as wide as the content column.

``test_crawler_flags_a_broken_site`` checks the crawler itself on a small throwaway site.
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from collections import deque
from pathlib import Path
from urllib.parse import urldefrag, urlsplit, urlunsplit

import pytest
from conftest import REPO_ROOT, browser_context, serve_directory

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
    """HTTP status and content type of a HEAD of ``url`` (no body: nothing left half-sent)."""
    try:
        with urllib.request.urlopen(urllib.request.Request(url, method="HEAD"), timeout=30) as resp:
            return resp.status, resp.headers.get_content_type()
    except urllib.error.HTTPError as err:
        return err.code, ""


# Requests that never go anywhere: inline data, blobs made by the page, the empty page.
_LOCAL_SCHEMES = ("data:", "blob:", "about:")


def guard_offsite(page, base_url: str) -> list[str]:
    """Record every request of ``page`` that does not go to ``base_url``; return their URL list.

    The list fills while the page is used; an empty list at the end means nothing left the site.
    The requests are only watched (Playwright's request events), not intercepted: routing every
    request through Playwright made the crawl about twice as slow. They cannot reach another host
    anyway: the browser resolves no host name but 127.0.0.1 (``--host-resolver-rules`` in
    conftest.CHROMIUM_ARGS), so an off-site request fails at once, and is reported here.
    """
    offsite: list[str] = []

    def on_request(request) -> None:
        url = request.url
        if not url.startswith(base_url) and not url.startswith(_LOCAL_SCHEMES):
            offsite.append(url)

    page.on("request", on_request)
    return offsite


def crawl(context, base_url: str, start: str = "index.html") -> tuple[list[str], list[str]]:
    """Crawl the site at ``base_url`` from ``start`` in the browser ``context``.

    Returns
    -------
    (pages, problems)
        The page URLs visited (each once) and one line per offender: console error, page error,
        HTTP error, broken image, broken internal link or a request that leaves the site, each
        naming its page.
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
    offsite = guard_offsite(page, base_url)
    try:
        while queue:
            url = queue.popleft()
            name = url.removeprefix(base_url) or "/"
            pages.append(url)
            errors.clear()
            offsite.clear()
            response = page.goto(url, wait_until="load", timeout=60_000)
            if response is None or response.status != 200:
                problems.append(f"{name}: HTTP {response.status if response else 'no response'}")
                continue
            page.wait_for_function(IMAGES_SETTLED_JS, timeout=30_000, polling=100)
            page.wait_for_timeout(100)  # late console messages of the load
            found = page.evaluate(PAGE_JS)
            problems += [f"{name}: {err}" for err in errors]
            problems += [f"{name}: request leaves the site: {off}" for off in offsite]
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
                '<link rel="stylesheet" href="https://cdn.example.net/theme.css">'
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
    assert "sub/: request leaves the site: https://cdn.example.net/theme.css" in text
    assert "example.org" not in text and "mailto" not in text
    assert not [p for p in problems if p.startswith(("index.html", "good.html")) and "bad.html" not in p]


# ----------------------------------------------------------------------------- the book look

#: A notebook page with sections, code cells and figures (the first notebook of OASiS).
PAGE = "10_oasis_model.html"

#: Navigation captions by the first digit of the notebook number (DESIGN.md's numbering).
CAPTIONS = {
    "0": "Overview",
    "1": "OASiS",
    "2": "Optimus",
    "3": "PD-ORS",
    "4": "A_online",
    "5": "SpeCon",
    **dict.fromkeys("6789", "Arena (cross-paper)"),
}

# Sphinx's smart quotes: the rendered title has typographic quotes where the notebook has ASCII ones.
_QUOTES = str.maketrans({"\u201c": '"', "\u201d": '"', "\u2018": "'", "\u2019": "'"})


def _notebook_title(path: Path) -> str:
    """The text of the notebook's first ``# `` heading."""
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        if cell["cell_type"] == "markdown":
            source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
            for line in source.splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    raise AssertionError(f"{path.name} has no '# ' heading")


def _expected_navigation() -> list[tuple[str, list[tuple[str, str]]]]:
    """(caption, [(page, title), ...]) per paper, from notebooks/NN_*.ipynb, in order."""
    groups: list[tuple[str, list[tuple[str, str]]]] = []
    for path in sorted((REPO_ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        caption = CAPTIONS[path.name[0]]
        entry = (f"{path.stem}.html", _notebook_title(path))
        if groups and groups[-1][0] == caption:
            groups[-1][1].append(entry)
        else:
            groups.append((caption, [entry]))
    return groups


NAVIGATION_JS = """() => {
  const nav = document.querySelector('.bd-sidebar-primary nav.bd-docs-nav');
  const groups = [];
  for (const caption of nav.querySelectorAll('p.caption')) {
    const list = caption.nextElementSibling;  // the current page's own link is "#": use its file name
    groups.push([caption.innerText.trim(), Array.from(list.querySelectorAll(':scope > li > a'))
      .map(a => [new URL(a.href).pathname.split('/').pop(), a.innerText.trim()])]);
  }
  const box = nav.getBoundingClientRect();
  return {groups, visible: box.width > 100 && box.height > 100,
          current: (nav.querySelector('li.current > a') || {}).innerText || null};
}"""


@pytest.fixture(scope="module")
def book_page(browser, site_url):
    """:data:`PAGE`, loaded once for the tests below (each leaves it as it found it, or only scrolled).

    Its off-site requests and uncaught exceptions are recorded; the teardown asserts there were none.
    """
    with browser_context(browser) as ctx:
        page = ctx.new_page()
        offsite = guard_offsite(page, site_url)
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(site_url + PAGE, wait_until="load")
        yield page
        page.close()
    assert not offsite, f"requests left the site: {offsite}"
    assert not errors, f"uncaught exceptions: {errors}"


def test_sidebar_lists_every_notebook_by_paper(book_page):
    """The primary sidebar: every notebook page, under its paper's caption, titled by its first heading."""
    found = book_page.evaluate(NAVIGATION_JS)
    assert found["visible"], "the navigation sidebar is not shown at the test's viewport width"
    expected = _expected_navigation()
    assert [caption for caption, _ in found["groups"]] == [caption for caption, _ in expected]
    for (caption, links), (_, entries) in zip(found["groups"], expected, strict=True):
        assert [href for href, _ in links] == [page for page, _ in entries], caption
        for (href, text), (_, title) in zip(links, entries, strict=True):
            assert text.translate(_QUOTES) == title, f"{caption}: {href}"
    assert found["current"] is not None and found["current"].translate(_QUOTES) == dict(
        entry for _, entries in expected for entry in entries
    )[PAGE]


def test_page_has_on_this_page_toc(book_page):
    """The secondary sidebar "On this page" links to every section (##) of the page, and the links work."""
    toc = book_page.locator(".bd-sidebar-secondary")
    assert toc.is_visible()
    assert "On this page" in toc.inner_text()
    hrefs = toc.locator("nav.page-toc a").evaluate_all("links => links.map(a => a.getAttribute('href'))")
    sections = book_page.locator("article.bd-article section > h2").evaluate_all(
        "hs => hs.map(h => h.parentElement.id)"
    )
    assert len(sections) >= 3, sections
    assert [f"#{section}" for section in sections] == [h for h in hrefs if h.removeprefix("#") in sections]
    assert all(h.startswith("#") for h in hrefs)
    last = sections[-1]
    toc.locator(f'nav.page-toc a[href="#{last}"]').click()
    book_page.wait_for_function("id => location.hash === '#' + id", arg=last)
    assert book_page.locator(f'section[id="{last}"] > h2').is_visible()


def test_code_cell_collapses_and_expands(book_page):
    """A code cell's source is in an open <details>: a click hides it (not the output), one more shows it."""
    cell = book_page.locator("div.cell:has(> details.dlsched-code):has(> div.cell_output)").first
    toggle = cell.locator("> details.dlsched-code")
    code = toggle.locator("div.cell_input pre")
    summary = toggle.locator("> summary")
    assert toggle.get_attribute("open") is not None and code.is_visible()
    assert summary.inner_text().strip() == "Hide code"
    summary.click()
    assert toggle.get_attribute("open") is None
    assert not code.is_visible() and summary.inner_text().strip() == "Show code"
    assert cell.locator("> div.cell_output").is_visible()  # the outputs stay
    summary.click()
    assert toggle.get_attribute("open") is not None and code.is_visible()


def test_figure_fills_the_content_width(book_page, screenshot_dir):
    """A figure of the cell outputs is drawn at (nearly) the width of the article's content column.

    Also saves the page's first screen as build/browser/site_page.png.
    """
    image = book_page.locator("div.cell_output img").first
    image.scroll_into_view_if_needed()
    book_page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=image.element_handle())
    widths = image.evaluate("""img => {
      const article = img.closest('article.bd-article');
      const style = getComputedStyle(article);
      const content = article.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
      return {image: img.getBoundingClientRect().width, content, natural: img.naturalWidth};
    }""")
    assert widths["content"] > 600, widths  # the theme's column, not a narrow box
    assert widths["image"] >= 0.95 * widths["content"], widths
    book_page.evaluate("window.scrollTo(0, 0)")
    book_page.screenshot(path=str(screenshot_dir / "site_page.png"))
