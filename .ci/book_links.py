#!/usr/bin/env python3
"""Checks every link of the built book: each relative href of each page
leads to a file the build wrote, and each #fragment to an id on that page.
Usage: book_links.py BUILD_DIR. Exit 1 with one line per broken link."""
import html.parser
import os
import sys
import urllib.parse


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids, self.hrefs = set(), []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"])
        if tag == "a" and a.get("href"):
            self.hrefs.append(a["href"])


def main(root):
    pages = {}
    for d, _, files in os.walk(root):
        for f in files:
            if f.endswith(".html"):
                p = Page()
                with open(os.path.join(d, f), encoding="utf-8") as fh:
                    p.feed(fh.read())
                pages[os.path.normpath(os.path.join(d, f))] = p
    broken, checked = [], 0
    for path, page in sorted(pages.items()):
        for href in page.hrefs:
            u = urllib.parse.urlsplit(href)
            if u.scheme or u.netloc or href.startswith("javascript:"):
                continue
            target = path if not u.path else os.path.normpath(os.path.join(os.path.dirname(path), urllib.parse.unquote(u.path)))
            checked += 1
            if not os.path.exists(target):
                broken.append(f"{os.path.relpath(path, root)}: {href}: no such file")
            elif u.fragment and target in pages and urllib.parse.unquote(u.fragment) not in pages[target].ids:
                broken.append(f"{os.path.relpath(path, root)}: {href}: no such anchor")
    for b in broken:
        print(b)
    print(f"book links: {checked} checked over {len(pages)} pages, {len(broken)} broken", file=sys.stderr)
    return 1 if broken or checked == 0 else 0


if __name__ == "__main__":
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        print("usage: book_links.py BUILD_DIR (a built book)", file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
