#!/usr/bin/env python3
"""Self-test of check_html_report.py: a blank screenshot fails, a drawn one passes, and the PNG
decoder reads every row filter."""
import os
import struct
import sys
import tempfile
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_html_report as check  # noqa: E402


def write_png(path, rows, filters):
    """An 8-bit RGB PNG; row y uses filter filters[y % len(filters)] (encoded here)."""
    height, width = len(rows), len(rows[0])
    raw, previous = b"", bytes(width * 3)
    for y, row in enumerate(rows):
        line = bytes(v for pixel in row for v in pixel)
        kind = filters[y % len(filters)]
        out = bytearray()
        for i, value in enumerate(line):
            left = line[i - 3] if i >= 3 else 0
            up = previous[i]
            upper_left = previous[i - 3] if i >= 3 else 0
            if kind == 0:
                predictor = 0
            elif kind == 1:
                predictor = left
            elif kind == 2:
                predictor = up
            elif kind == 3:
                predictor = (left + up) // 2
            else:
                p = left + up - upper_left
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - upper_left)
                predictor = left if pa <= pb and pa <= pc else (up if pb <= pc else upper_left)
            out.append((value - predictor) & 0xFF)
        raw += bytes([kind]) + bytes(out)
        previous = line

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def main():
    directory = tempfile.mkdtemp()
    blank = os.path.join(directory, "blank.png")
    write_png(blank, [[(255, 255, 255)] * 80 for _ in range(60)], [0])
    assert check.check_png(blank), "a blank page must fail"

    drawn = os.path.join(directory, "drawn.png")
    rows = []
    for y in range(120):
        row = []
        for x in range(160):
            if y < 40 and x < 80:
                row.append(check.CHART_COLOURS["A blue"])
            elif y >= 80 and x >= 80:
                row.append(check.CHART_COLOURS["loaded green"])
            elif y % 7 == 0:
                row.append(((x * 3) % 256, (y * 5) % 256, (x * y) % 256))
            else:
                row.append((244, 245, 247))
        rows.append(row)
    write_png(drawn, rows, [0, 1, 2, 3, 4])
    width, height, decoded = check.read_png(drawn)
    assert (width, height) == (160, 120) and decoded == rows, "the decoder must undo every filter"
    assert check.check_png(drawn) == [], check.check_png(drawn)

    page = os.path.join(directory, "r.html")
    with open(page, "w", encoding="utf-8") as f:
        f.write("<html><svg><text>Revenue by network</text></svg></html>")
    assert check.check_html(page, ["Revenue by network"]) == []
    assert check.check_html(page, ["Revenue by network", "Time to ready (CDF)"])
    with open(page, "w", encoding="utf-8") as f:
        f.write('<html><script src="https://x.example/a.js"></script><svg>Revenue by network</svg></html>')
    assert len(check.check_html(page, ["Revenue by network"])) == 3
    print("check_html_report self-test: ok")


if __name__ == "__main__":
    main()
