"""The viewer in a real browser: `chomp3 view` on a fresh table and the committed
census, driven in Debian's headless chromium through chromium-driver.

    python3 tests/browser/viewer_test.py [--chomp3 PATH] [--screenshot PATH]

Checks that the page loads without console errors; that zooming to a known cell
and hovering it shows that cell's f(q,r) (as `chomp3 get` prints it); that the
census filter "period = 27" lists the five rows of period 27 (and how long the
filter takes); that clicking a listed row opens it with its pattern; that a
screenshot is not blank. Exits non-zero on the first failure."""

import argparse
import os
import struct
import subprocess
import sys
import tempfile
import time
import zlib

sys.path.insert(0, os.path.dirname(__file__))
from webdriver import Browser  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def png_pixels(data):
    """Width, height and rows of (r, g, b) of an 8-bit RGB or RGBA PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and colour in (2, 6) and interlace == 0, "unexpected PNG kind"
            bpp = 4 if colour == 6 else 3
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw, stride, prev, rows = zlib.decompress(idat), width * bpp, bytearray(width * bpp), []
    for y in range(height):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[x * bpp:x * bpp + 3]) for x in range(width)])
        prev = line
    return width, height, rows


def check(condition, what):
    if not condition:
        raise SystemExit(f"FAIL: {what}")
    print(f"ok: {what}")


def no_console_errors(b, where):
    bad = [e for e in b.console() if e.get("level") == "SEVERE"]
    check(not bad, f"no console errors ({where}): {bad}")


def start_viewer(chomp3, args, cwd):
    proc = subprocess.Popen([chomp3, "view", "--port", "0", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, cwd=cwd)
    line = proc.stdout.readline()
    check("http://127.0.0.1:" in line, f"the viewer listens on 127.0.0.1: {line.strip()}")
    return proc, line.split("serving ")[1].split()[0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--chomp3", default=os.path.join(ROOT, "target", "debug", "chomp3"))
    ap.add_argument("--table", help="a table to view (default: a fresh one, N = 2000)")
    ap.add_argument("--cell", default="1000,400", help="the cell to zoom to and hover, q,r")
    ap.add_argument("--screenshot", help="also save a screenshot of the page here (README's)")
    ap.add_argument("--screenshot-view", default="tab=table&m=offset",
                    help="the view (URL hash) of that screenshot (default: the whole table, fitted)")
    args = ap.parse_args()
    q, r = (int(x) for x in args.cell.split(","))
    census = os.path.join(ROOT, "data", "census-1000000", "census.c3d.xz")
    with tempfile.TemporaryDirectory() as tmp:
        table = args.table
        if table is None:
            table = os.path.join(tmp, "t.c3t")
            subprocess.run([args.chomp3, "compute", "--quiet", "--n", "2000", "--table", table], check=True)
        want = subprocess.run([args.chomp3, "get", str(q), str(r), "--table", table], check=True,
                              capture_output=True, text=True).stdout.strip()
        # Started in the temporary directory with names relative to it, so
        # that the page (and a screenshot of it) shows no machine's paths.
        os.symlink(census, os.path.join(tmp, "census.c3d.xz"))
        if args.table is not None:
            os.symlink(os.path.abspath(table), os.path.join(tmp, "t.c3t"))
        shown = ["--table", "t.c3t", "--census", "census.c3d.xz"]
        proc, url = start_viewer(os.path.abspath(args.chomp3), shown, tmp)
        try:
            with Browser() as b:
                run_checks(b, url, q, r, want)
                if args.screenshot:
                    save_screenshot(b, url, args.screenshot_view, args.screenshot)
        finally:
            proc.terminate()
            proc.wait(10)
    print("browser test passed")


def save_screenshot(b, url, view, path):
    b.get("about:blank")
    b.get(f"{url}#{view}")
    b.wait("return document.body.dataset.ready")
    if "tab=census" in view:
        b.wait("return document.querySelectorAll('.census-row').length > 0")
    else:
        b.wait("return HeatMap.tiles.size > 0 && [...HeatMap.tiles.values()].every(t => t.complete)")
        b.hover("#map")  # the centre: a cell of the table in the fitted view
        b.wait("return !document.getElementById('hover').hidden")
    with open(path, "wb") as f:
        f.write(b.screenshot())
    print(f"saved {path}")


def run_checks(b, url, q, r, want):
    # The table: zoomed to 8 pixels per cell around (q, r); hover the centre.
    b.get(f"{url}#tab=table&m=offset&z=3&q={q}&r={r}")
    b.wait("return document.body.dataset.ready")
    no_console_errors(b, "page load")
    b.wait("return [...document.images].length > 0 && HeatMap.tiles.size > 0 && "
           "[...HeatMap.tiles.values()].every(t => t.complete)")
    b.hover("#map")
    text = b.wait("const h = document.getElementById('hover'); return !h.hidden && h.textContent")
    check(f"f({q},{r}) = {want}" in text, f"hovering cell ({q},{r}) shows f = {want}: {text!r}")
    link = b.run("return document.getElementById('permalink').getAttribute('href')")
    check(f"q={q}" in link and f"r={r}" in link and "z=3" in link, f"the permanent link holds the view: {link}")
    shot = b.screenshot()
    width, height, rows = png_pixels(shot)
    colours = {px for row in rows[::4] for px in row[::4]}
    check(width > 600 and height > 400 and len(colours) > 20,
          f"the screenshot ({width}x{height}) is not blank: {len(colours)} colours")
    axes = b.run("return window.chompAxes")
    check(len(axes["q"]) >= 2 and len(axes["r"]) >= 2 and min(axes["q"]) <= q <= max(axes["q"]) + 100,
          f"the heat map's axes are numbered around q = {q}: {axes}")
    no_console_errors(b, "table")

    # The whole table fills the canvas's shorter side (not a power of two of it).
    b.get("about:blank")
    b.get(f"{url}#tab=table&m=offset")
    b.wait("return document.body.dataset.ready")
    fill = b.wait("const c = document.getElementById('map');"
                  "return HeatMap.ppc() * info.table.columns / Math.min(c.clientWidth - 2 * HeatMap.LEFT,"
                  " c.clientHeight - 2 * HeatMap.TOP)")
    check(0.95 <= fill <= 1.0, f"'whole table' fits the window: {fill:.3f} of the shorter side")
    axes = b.run("return window.chompAxes")
    check(axes["q"][0] == 0 and axes["r"][0] == 0 and max(axes["q"]) >= 1000,
          f"the fitted view's axes run from 0: {axes}")

    # The census: period 27.
    b.get("about:blank")
    b.get(f"{url}#tab=census&pmode=eq&p=27")
    b.wait("return document.body.dataset.ready")
    listed = b.wait("const l = [...document.querySelectorAll('.census-row')];"
                    "return l.length && l.map(e => Number(e.dataset.r))")
    # The five rows of period 27 up to 10^6 (RESULTS.md).
    want = [112742, 165560, 176144, 432746, 767578]
    check(listed == want, f"period 27 lists rows {want}: {listed}")
    axes = b.run("return window.chompCensusAxes")
    check(len(axes["value"]) >= 2 and axes["r"][0] == 0 and max(axes["r"]) >= 200000,
          f"the census figure's axes are numbered: {axes}")
    times = []
    for mode in ["any", "gt1", "eq"] * 3:
        b.run(f"const s = document.getElementById('f-pmode'); s.value = '{mode}';"
              "s.dispatchEvent(new Event('input'))")
        times.append(b.run("return window.chompFilterMs"))
    rows = b.run("return Census.data.rows")
    median = sorted(times)[len(times) // 2]
    print(f"census filter over {rows} rows: median {median:.1f} ms (of {len(times)})")
    check(median < 100, "the census filters in under 100 ms")

    # Clicking a listed row opens it with its period and pattern.
    b.run("document.querySelector('.census-row').click()")
    info = b.wait("return document.getElementById('row-info').textContent")
    check("row 112742: periodic" in info and "period 27" in info, f"the row opens: {info[:80]!r}")
    no_console_errors(b, "census and rows")

    # Past 2^32 - 1 the Rows tab refuses (its numbers are exact to 2^53 only)
    # rather than draw rounded columns.
    b.run("location.hash = '#tab=rows&rr=120&from=100000000000000001&to=100000000000000004'")
    said = b.wait("const s = document.getElementById('status').textContent;"
                  "return s.includes('0..4294967295') && s")
    check("from must be a whole number" in said, f"the Rows tab refuses q past 2^32 - 1: {said!r}")


if __name__ == "__main__":
    main()
