#!/usr/bin/env python3
"""Writes the GeoJSON differential corpus: one input a line, "wkb HEX" (WKB as Debezium sends it)
or "mysql HEX" (MySQL's internal geometry bytes, SRID first, as canal-json carries them). Hand-picked
cases first, then random ones from a fixed seed, so a rerun writes the same file."""
import random
import struct
import sys

R = random.Random(20261203)
ODD = [0.0, -0.0, 1.0, -1.0, 0.1, 0.5, 1e-7, 1e-4, 9.9e-5, 1e-3, 1e7, 1e16, 1e17, 1e21, 1e22,
       123456789012345.0, 2.0 ** 53, 2.0 ** 53 + 2, 2.0 ** 56, 2.0 ** 62, 2.0 ** 63, 2.0 ** 70,
       12345678.5, 100.0, 1.5e300, 4.9e-324, 2.2250738585072014e-308, 1e-310, 1.7976931348623157e308,
       0.3, 2.0 / 3.0, 1.0 / 3.0, 116.397128, 39.916527, -180.0, 90.0, 9007199254740993.0,
       99999999999999999.0, 1e16 + 2, 5e-5, 0.0001, 12345.678901234567, 3.141592653589793]
NAN = float("nan")
INF = float("inf")


def rnd_double():
    k = R.randrange(8)
    if k == 0:
        return R.choice(ODD) * R.choice([1, -1])
    if k == 1:
        return float(R.randrange(-10 ** R.randrange(1, 18), 10 ** R.randrange(1, 18)))
    if k == 2:
        return struct.unpack("<d", struct.pack("<Q", R.getrandbits(64)))[0]
    if k == 3:
        return round(R.uniform(-180, 180), R.randrange(0, 9))
    if k == 4:
        return R.uniform(-1, 1) * 10 ** R.randrange(-12, 25)
    return R.uniform(-1000, 1000)


def finite():
    while True:
        v = rnd_double()
        if v == v and abs(v) != INF:
            return v


class W:
    def __init__(self, le, dims):
        self.le, self.dims = le, dims

    def p(self, fmt, *v):
        return struct.pack(("<" if self.le else ">") + fmt, *v)

    def head(self, t):
        code = {"": 0, "Z": 1000, "M": 2000, "ZM": 3000}[self.dims] + t
        return bytes([1 if self.le else 0]) + self.p("I", code)

    def coords(self, pt):
        return b"".join(self.p("d", c) for c in pt)

    def point(self, pt):
        return self.head(1) + self.coords(pt)

    def line(self, pts, t=2):
        return self.head(t) + self.p("I", len(pts)) + b"".join(self.coords(q) for q in pts)

    def polygon(self, rings):
        return self.head(3) + self.p("I", len(rings)) + b"".join(
            self.p("I", len(r)) + b"".join(self.coords(q) for q in r) for r in rings)

    def multi(self, t, parts):
        return self.head(t) + self.p("I", len(parts)) + b"".join(parts)


def ndim(dims):
    return 2 + len(dims)


def pt(dims, f=finite):
    return tuple(f() for _ in range(ndim(dims)))


def ring(dims, n, closed=True, ccw=None):
    pts = [pt(dims, lambda: float(R.randrange(-50, 50))) for _ in range(n)]
    if ccw is not None and n >= 3:
        import math
        cx, cy = R.uniform(-10, 10), R.uniform(-10, 10)
        angs = sorted(R.uniform(0, 2 * math.pi) for _ in range(n))
        if not ccw:
            angs.reverse()
        pts = [(round(cx + 5 * math.cos(a), 3), round(cy + 5 * math.sin(a), 3)) + pts[i][2:]
               for i, a in enumerate(angs)]
    if closed and n >= 1:
        pts.append(pts[0])
    return pts


def rand_geom(w, depth=0, types=(1, 2, 3, 4, 5, 6, 7)):
    d = w.dims
    t = R.choice(types if depth < 3 else types[:-1])
    if t == 1:
        return w.point(pt(d))
    if t == 2:
        return w.line([pt(d) for _ in range(R.choice([0, 1, 2, 3, 5]))])
    if t == 3:
        return w.polygon([ring(d, R.choice([0, 1, 2, 3, 4, 6]), R.random() < 0.8,
                               R.choice([None, True, False])) for _ in range(R.choice([0, 1, 1, 2, 3]))])
    if t == 4:
        return w.multi(4, [w.point(pt(d)) for _ in range(R.choice([0, 1, 2, 4]))])
    if t == 5:
        return w.multi(5, [w.line([pt(d) for _ in range(R.choice([0, 1, 2, 4]))])
                           for _ in range(R.choice([0, 1, 2, 3]))])
    if t == 6:
        return w.multi(6, [w.polygon([ring(d, R.choice([0, 3, 4, 5]), True, R.choice([None, True, False]))
                                      for _ in range(R.choice([0, 1, 2]))]) for _ in range(R.choice([0, 1, 2, 3]))])
    return w.multi(7, [rand_geom(w, depth + 1) for _ in range(R.choice([0, 1, 2, 3]))])


def mysql(srid, wkb):
    return struct.pack("<I", srid) + wkb


def main():
    out = []
    add = lambda mode, b: out.append(mode + " " + b.hex().upper())
    for le in (True, False):
        for dims in ("", "Z", "M", "ZM"):
            w = W(le, dims)
            n = ndim(dims)
            add("wkb", w.point(tuple(float(i + 1) for i in range(n))))
            add("wkb", w.point(tuple([NAN] * n)))  # empty point
            add("wkb", w.point((1.5,) + tuple([NAN] * (n - 1))))
            add("wkb", w.line([]))
            add("wkb", w.line([(1.0,) * n]))
            add("wkb", w.line([(0.0,) * n, (1.0,) * n, (2.0, 0.5) + (3.0,) * (n - 2)]))
            add("wkb", w.line([(0.0,) * n, (1.0,) * n, (0.0,) * n]))  # closed line
            add("wkb", w.polygon([]))
            add("wkb", w.polygon([[]]))
            sq = [(0.0, 0.0), (10.0, 0.0), (10.0, 10.0), (0.0, 10.0), (0.0, 0.0)]
            hole = [(2.0, 2.0), (2.0, 4.0), (4.0, 4.0), (4.0, 2.0), (2.0, 2.0)]
            ext = lambda r: [q + (7.0,) * (n - 2) for q in r]
            add("wkb", w.polygon([ext(sq)]))
            add("wkb", w.polygon([ext(list(reversed(sq)))]))
            add("wkb", w.polygon([ext(sq), ext(hole)]))
            add("wkb", w.polygon([ext(sq), ext(list(reversed(hole)))]))
            add("wkb", w.polygon([ext(sq[:-1])]))  # not closed
            add("wkb", w.polygon([ext(sq[:1])]))
            add("wkb", w.polygon([ext(sq[:2])]))
            add("wkb", w.polygon([[], ext(sq)]))
            add("wkb", w.polygon([ext(sq), []]))
            add("wkb", w.polygon([ext([(0.0, 0.0), (1.0, 1.0), (2.0, 2.0), (0.0, 0.0)])]))  # no area
            add("wkb", w.multi(4, []))
            add("wkb", w.multi(4, [w.point((1.0,) * n), w.point(tuple([NAN] * n)), w.point((2.0,) * n)]))
            add("wkb", w.multi(4, [w.point((1.0,) * n)]))
            add("wkb", w.multi(5, []))
            add("wkb", w.multi(5, [w.line([(0.0,) * n, (1.0,) * n])]))
            add("wkb", w.multi(5, [w.line([(0.0,) * n, (1.0,) * n]), w.line([]), w.line([(5.0,) * n])]))
            add("wkb", w.multi(6, []))
            add("wkb", w.multi(6, [w.polygon([ext(sq)])]))
            add("wkb", w.multi(6, [w.polygon([ext(sq), ext(hole)]), w.polygon([ext([(q[0] + 20, q[1]) for q in sq])])]))
            add("wkb", w.multi(6, [w.polygon([ext(sq)]), w.polygon([]), w.polygon([[], ext(hole)])]))
            add("wkb", w.multi(6, [w.polygon([ext(sq)]), w.polygon([[], [], ext(hole)])]))
            add("wkb", w.multi(7, []))
            add("wkb", w.multi(7, [w.point((1.0,) * n), w.multi(6, [w.polygon([ext(sq)])]),
                                   w.multi(5, [w.line([(0.0,) * n, (1.0,) * n])]), w.multi(4, [w.point((3.0,) * n)]),
                                   w.multi(7, [w.multi(7, []), w.polygon([])])]))
    # numbers
    for v in ODD + [NAN, INF, -INF] + [-x for x in ODD]:
        add("wkb", W(True, "").point((v, 1.0)))
        add("wkb", W(True, "").line([(1.0, v), (v, v)]))
    # mixed dims and byte orders inside collections; odd type codes; truncation
    add("wkb", W(True, "").multi(7, [W(True, "Z").point((1.0, 2.0, 3.0))]))
    add("wkb", W(True, "Z").multi(7, [W(True, "").point((1.0, 2.0))]))
    add("wkb", W(True, "").multi(7, [W(False, "").point((1.0, 2.0))]))
    add("wkb", W(False, "").multi(4, [W(True, "").point((1.0, 2.0))]))
    for code in (0, 8, 15, 17, 1001 + 6, 3000, 0x20000001, 0x80000001, 0x40000001, 0xFFFFFFFF):
        add("wkb", struct.pack("<BI", 1, code) + struct.pack("<dd", 1.0, 2.0))
    base = W(True, "").polygon([[(0.0, 0.0), (10.0, 0.0), (10.0, 10.0), (0.0, 0.0)]])
    for cut in range(0, len(base), 3):
        add("wkb", base[:cut])
    add("wkb", base + b"\x00\x01")
    add("wkb", bytes([2]) + base[1:])
    add("wkb", W(True, "").line([]) [:5] + struct.pack("<i", -1))
    add("wkb", W(True, "").multi(4, [])[:5] + struct.pack("<i", -1))
    add("wkb", W(True, "").multi(4, [])[:5] + struct.pack("<i", 1000000))
    # MySQL's internal form: SRID (little-endian) then WKB
    for srid in (0, 4326, 3857, 1):
        for g in (W(True, "").point((116.397128, 39.916527)), W(True, "").line([(0.0, 0.0), (1.0, 1.0)]),
                  W(True, "").polygon([[(0.0, 0.0), (10.0, 0.0), (10.0, 10.0), (0.0, 0.0)]]),
                  W(False, "").point((1.0, 2.0)), W(True, "").multi(7, [])):
            add("mysql", mysql(srid, g))
    add("mysql", b"\x00\x00\x00")
    add("mysql", b"\x00\x00\x00\x00")
    add("mysql", b"\x01\x00\x00\x00\x01")
    # random geometries
    for i in range(1500):
        w = W(R.random() < 0.7, R.choice(["", "", "Z", "M", "ZM"]))
        g = rand_geom(w)
        if R.random() < 0.03:
            g = g[:R.randrange(len(g) + 1)]
        add("mysql" if R.random() < 0.1 else "wkb", mysql(0, g) if False else g)
    for i in range(300):
        w = W(R.random() < 0.7, "")
        g = rand_geom(w)
        add("mysql", mysql(0, g))
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
