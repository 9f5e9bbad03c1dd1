#!/usr/bin/env python3
"""Checks a `mediate --report` page as a browser drew it.

Usage: check_html_report.py REPORT.html SCREENSHOT.png TITLE...

The HTML must be self-contained (no script, nothing fetched) and name every chart TITLE; the PNG
(headless Chromium's screenshot of it) must not be blank: many distinct colours, a fair share of
non-background pixels, and the report's chart colours present. The PNG is decoded with zlib only
(8-bit RGB or RGBA, non-interlaced, as Chromium writes them), so no package is needed.
"""
import struct
import sys
import zlib

# Colours the charts draw with (Palette in Sources/MediateCLI/Report/Charts.swift): A's blue and
# the funnel's "loaded" green.
CHART_COLOURS = {"A blue": (0x4C, 0x78, 0xA8), "loaded green": (0x54, 0xA2, 0x4B)}


def read_png(path):
    """Returns (width, height, rows of (r, g, b) tuples)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path}: not a PNG")
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", chunk)
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in (2, 6) or interlace != 0:
        raise ValueError(f"{path}: unsupported PNG (depth {depth}, colour type {colour}, interlace {interlace})")
    channels = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            upper_left = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - upper_left
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - upper_left)
                predictor = left if pa <= pb and pa <= pc else (up if pb <= pc else upper_left)
                line[i] = (line[i] + predictor) & 0xFF
        rows.append([tuple(line[x:x + 3]) for x in range(0, stride, channels)])
        previous = line
    return width, height, rows


def check_png(path):
    """Problems with the screenshot, empty when it shows a drawn report."""
    width, height, rows = read_png(path)
    pixels = [pixel for row in rows for pixel in row]
    counts = {}
    for pixel in pixels:
        counts[pixel] = counts.get(pixel, 0) + 1
    background, background_count = max(counts.items(), key=lambda item: item[1])
    problems = []
    if len(counts) < 50:
        problems.append(f"only {len(counts)} distinct colours: the page looks blank")
    drawn = 1 - background_count / len(pixels)
    if drawn < 0.05:
        problems.append(f"only {drawn:.1%} of the pixels differ from the background {background}")
    for name, colour in CHART_COLOURS.items():
        near = sum(n for pixel, n in counts.items() if all(abs(a - b) <= 6 for a, b in zip(pixel, colour)))
        if near < 200:
            problems.append(f"the charts' {name} {colour} covers only {near} pixels")
    return problems


def check_html(path, titles):
    with open(path, encoding="utf-8") as f:
        html = f.read()
    problems = [f"chart title '{title}' missing" for title in titles if title not in html]
    for forbidden in ("<script", "src=", "href=", "@import", "url(", "https://"):
        if forbidden in html:
            problems.append(f"not self-contained: contains '{forbidden}'")
    if html.count("<svg") < len(titles):
        problems.append(f"{html.count('<svg')} charts for {len(titles)} titles")
    return problems


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 64
    html, png, titles = argv[0], argv[1], argv[2:]
    problems = check_html(html, titles) + check_png(png)
    for problem in problems:
        print(f"{png}: {problem}", file=sys.stderr)
    if not problems:
        print(f"{html}: {len(titles)} charts named, screenshot drawn")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
