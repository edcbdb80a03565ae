#!/usr/bin/env python3
"""Compare a PNG drawn by scorch with the SVG of the same graph.

usage: pngcheck.py IMAGE.png FRAMES.tsv SVG

FRAMES.tsv is `scorch flamegraph --dump-frames` (the SVG's rectangles and
fills); SVG is the SVG itself (for its width and height). Checks: the image
is the SVG's size; in each frame at least 3 px wide, at its vertical middle
and in the first whole pixel column (left of its label, which starts 3 px in,
and clear of the rounded corners), the PNG's colour is the frame's fill;
the title row has dark (text) pixels. Prints one line per failure and exits
1 if any. A minimal PNG reader (8-bit RGB/RGBA, no interlace) so the test
needs nothing beyond python3.
"""
import re
import struct
import sys
import zlib


def read_png(path):
    data = open(path, 'rb').read()
    if data[:8] != b'\x89PNG\r\n\x1a\n':
        sys.exit(f'{path}: not a PNG')
    pos, idat, hdr = 8, b'', None
    while pos < len(data):
        n, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b'IHDR':
            hdr = struct.unpack('>IIBBBBB', body)
        elif kind == b'IDAT':
            idat += body
        pos += 12 + n
    w, h, depth, ctype, _, _, interlace = hdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        sys.exit(f'{path}: unsupported PNG (depth {depth}, colour type {ctype}, interlace {interlace})')
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[i] = (line[i] + pr) & 255
        rows.append(line)
        prev = line
    return w, h, bpp, rows


def main():
    png, tsv, svg = sys.argv[1:4]
    w, h, bpp, rows = read_png(png)
    text = open(svg, encoding='utf-8', errors='replace').read()
    m = re.search(r'<svg version="1.1" width="(\d+)" height="([\d.]+)"', text)
    fails = []
    sw, sh = int(m.group(1)), float(m.group(2))
    if (w, h) != (sw, int(-(-sh // 1))):
        fails.append(f'size {w}x{h}, the SVG is {sw}x{sh}')
    checked = 0
    for line in open(tsv, encoding='utf-8', errors='replace'):
        if line.startswith('#'):
            continue
        f = line.rstrip('\n').split('\t')
        x, y, fw, fh = float(f[1]), float(f[2]), float(f[3]), float(f[4])
        if fw < 3 or fh < 3:
            continue
        want = tuple(int(v) for v in re.match(r'rgb\((\d+),(\d+),(\d+)\)', f[5]).groups())
        px, py = int(x) + 1, int(y + fh / 2)
        got = tuple(rows[py][px * bpp:px * bpp + 3])
        checked += 1
        if got != want:
            fails.append(f'frame {f[0]!r} at ({px},{py}): PNG {got}, SVG fill {want}')
    if checked == 0:
        fails.append('no frame wide enough to check')
    # the title: dark pixels in the band above the first frame row
    band = rows[:max(1, int(h and 30))]
    if not any(min(r[i:i + 3]) < 80 for r in band for i in range(0, len(r), bpp)):
        fails.append('no text drawn in the title band')
    for s in fails[:20]:
        print(s)
    print(f'{checked} frames checked, {len(fails)} failures')
    sys.exit(1 if fails else 0)


main()
