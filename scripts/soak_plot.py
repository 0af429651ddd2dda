#!/usr/bin/env python3
"""Draws scripts/soak.sh's CSV (t_s, rss_kib, fds) as an SVG: resident memory (MiB)
and open file descriptors against time, one panel each. Standard library only.

    scripts/soak_plot.py soak.csv soak.svg
"""
import csv
import sys


def panel(xs, ys, top, label, color, w=720, h=200, left=70):
    ymax = max(ys) * 1.1 or 1
    xmax = max(xs) or 1
    pts = " ".join(
        f"{left + (w - left - 20) * x / xmax:.1f},{top + h - 30 - (h - 50) * y / ymax:.1f}"
        for x, y in zip(xs, ys)
    )
    base = top + h - 30
    return f"""
<text x="{left}" y="{top + 14}" font-size="13">{label}</text>
<line x1="{left}" y1="{base}" x2="{w - 20}" y2="{base}" stroke="#888"/>
<line x1="{left}" y1="{top + 20}" x2="{left}" y2="{base}" stroke="#888"/>
<text x="{left - 6}" y="{top + 24}" font-size="11" text-anchor="end">{ymax:.0f}</text>
<text x="{left - 6}" y="{base}" font-size="11" text-anchor="end">0</text>
<text x="{w - 20}" y="{base + 16}" font-size="11" text-anchor="end">{xmax:.0f} s</text>
<polyline fill="none" stroke="{color}" stroke-width="1.5" points="{pts}"/>"""


def main():
    rows = list(csv.DictReader(open(sys.argv[1])))
    t = [float(r["t_s"]) for r in rows]
    rss = [float(r["rss_kib"]) / 1024 for r in rows]
    fds = [float(r["fds"]) for r in rows]
    cpu = rows[0]["cpu_model"] if rows else ""
    body = panel(t, rss, 30, "forwarder resident memory (MiB)", "#1f77b4")
    body += panel(t, fds, 240, "forwarder open file descriptors", "#d62728")
    svg = f"""<svg xmlns="http://www.w3.org/2000/svg" width="720" height="470" font-family="sans-serif">
<rect width="100%" height="100%" fill="white"/>
<text x="70" y="18" font-size="14">ndnlab fwd soak at full load ({cpu})</text>{body}
</svg>
"""
    open(sys.argv[2], "w").write(svg)


if __name__ == "__main__":
    main()
