#!/usr/bin/env python3
"""The Bessel functions of rgdev's device math library (backend-user/include/math_functions.h),
computed for rgdev with mpmath:

    python3 tools/bessel_coefficients.py tables   # the header's fitted polynomials and zeros
    python3 tools/bessel_coefficients.py ref      # tests/cuda/bessel_ref.h

`tables` prints each interval's polynomial as math_coefficients.fit makes it (the Chebyshev
interpolant reaching 2^-60 relative error, in u = (v - m) / r, its constant term a
double-double; the header names it __rg_<name> and evaluates it with __RG_<NAME>(v)) and
the zeros of J0, J1, Y0 and Y1 below 8 as double-doubles. `ref` prints reference values
(x, then the function as a double-double) at seeded random points, most of them floats so
that the float functions are checked at the same x, and next to the zeros.
"""
import random
import struct
import sys

import mpmath as mp

import math_coefficients as mc


def J(n):
    return lambda x: mp.besselj(n, x)


def Y(n):
    return lambda x: mp.bessely(n, x)


def I(n):
    return lambda x: mp.besseli(n, x)


def ratio(f, z):
    """f(x) / (x - z): smooth through the zero z of f."""
    return lambda x: f(x) / (x - z)


def hankel(n, q):
    """Hankel's P_n (q false) or Q_n / w (q true) as functions of w = 8 / x, from J_n and
    Y_n: J = sqrt(2/(pi x)) (P cos c - Q sin c), Y = sqrt(2/(pi x)) (P sin c + Q cos c),
    c = x - (2n + 1) pi / 4."""
    def f(w):
        with mp.workprec(400):
            w = max(mp.mpf(w), mp.mpf(10) ** -20)
            x = 8 / w
            c = x - (2 * n + 1) * mp.pi / 4
            k = mp.sqrt(mp.pi * x / 2)
            if q:
                r = k * (Y(n)(x) * mp.cos(c) - J(n)(x) * mp.sin(c)) / w
            else:
                r = k * (J(n)(x) * mp.cos(c) + Y(n)(x) * mp.sin(c))
        return +r
    return f


def scaled_i(n, a):
    """sqrt(x) e^-x I_n(x) as a function of w = a / x."""
    def f(w):
        with mp.workprec(300):
            w = max(mp.mpf(w), mp.mpf(10) ** -20)
            r = mp.sqrt(a / w) * mp.exp(-a / w) * I(n)(a / w)
        return +r
    return f


def in_t(f, odd=False):
    """f(sqrt(t)) (divided by sqrt(t) when odd), at a tiny t for t = 0, in high precision
    (the small-x forms of Y0 and Y1 cancel their logarithmic terms)."""
    def g(t):
        with mp.workprec(400):
            t = max(mp.mpf(t), mp.mpf(10) ** -40)
            x = mp.sqrt(t)
            r = f(x) / x if odd else f(x)
        return +r
    return g


def tables():
    mp.mp.prec = 120
    zeros = {
        "j0": [mp.findroot(J(0), g) for g in (2.4, 5.52)],
        "j1": [mp.findroot(J(1), g) for g in (3.83, 7.0)],
        "y0": [mp.findroot(Y(0), g) for g in (0.89, 3.96, 7.09)],
        "y1": [mp.findroot(Y(1), g) for g in (2.2, 5.43)],
    }
    for name, zs in zeros.items():
        for k, z in enumerate(zs):
            hi = float(z)
            print(f"#define __RG_ZERO_{name.upper()}_{k + 1} {hi.hex()}, {float(z - mp.mpf(hi)).hex()}")
    y0_small = in_t(lambda x: Y(0)(x) - 2 / mp.pi * mp.log(x) * J(0)(x))
    y1_small = in_t(lambda x: Y(1)(x) - 2 / mp.pi * (mp.log(x) * J(1)(x) - 1 / x), odd=True)
    rows = [
        ("j0_t", in_t(J(0)), 0.0, 4.0, "J0(x), v = x^2"),
        ("j0_z1", ratio(J(0), zeros["j0"][0]), 1.5, 3.5, "J0(x) / (x - z), v = x"),
        ("j0_z2", ratio(J(0), zeros["j0"][1]), 3.5, 7.5, "J0(x) / (x - z), v = x"),
        ("j0_z3", J(0), 7.5, 8.0, "J0(x), v = x"),
        ("j1_t", in_t(J(1), odd=True), 0.0, 4.0, "J1(x) / x, v = x^2"),
        ("j1_z1", ratio(J(1), zeros["j1"][0]), 2.0, 5.5, "J1(x) / (x - z), v = x"),
        ("j1_z2", ratio(J(1), zeros["j1"][1]), 5.5, 8.0, "J1(x) / (x - z), v = x"),
        ("y0_t", y0_small, 0.0, 0.25, "Y0(x) - (2/pi) ln(x) J0(x), v = x^2"),
        ("y0_z1", ratio(Y(0), zeros["y0"][0]), 0.5, 1.25, "Y0(x) / (x - z), v = x"),
        ("y0_d1", Y(0), 1.25, 3.25, "Y0(x), v = x"),
        ("y0_z2", ratio(Y(0), zeros["y0"][1]), 3.25, 5.25, "Y0(x) / (x - z), v = x"),
        ("y0_z3", ratio(Y(0), zeros["y0"][2]), 5.25, 8.0, "Y0(x) / (x - z), v = x"),
        ("y1_t", y1_small, 0.0, 1.0, "(Y1(x) - (2/pi)(ln(x) J1(x) - 1/x)) / x, v = x^2"),
        ("y1_d1", Y(1), 1.0, 1.75, "Y1(x), v = x"),
        ("y1_z1", ratio(Y(1), zeros["y1"][0]), 1.75, 3.25, "Y1(x) / (x - z), v = x"),
        ("y1_d2", Y(1), 3.25, 4.5, "Y1(x), v = x"),
        ("y1_z2", ratio(Y(1), zeros["y1"][1]), 4.5, 6.5, "Y1(x) / (x - z), v = x"),
        ("y1_d3", Y(1), 6.5, 8.0, "Y1(x), v = x"),
        ("i0_t", in_t(I(0)), 0.0, 4.0, "I0(x), v = x^2"),
        ("i0_s", in_t(I(0)), 4.0, 16.0, "I0(x), v = x^2"),
        ("i0_e1", lambda x: mp.exp(-x) * I(0)(x), 4.0, 8.0, "e^-x I0(x), v = x"),
        ("i0_e2", lambda x: mp.exp(-x) * I(0)(x), 8.0, 16.0, "e^-x I0(x), v = x"),
        ("i0_w", scaled_i(0, 16), 0.0, 1.0, "sqrt(x) e^-x I0(x), v = 16 / x"),
        ("i1_t", in_t(I(1), odd=True), 0.0, 4.0, "I1(x) / x, v = x^2"),
        ("i1_s", in_t(I(1), odd=True), 4.0, 16.0, "I1(x) / x, v = x^2"),
        ("i1_e1", lambda x: mp.exp(-x) * I(1)(x), 4.0, 8.0, "e^-x I1(x), v = x"),
        ("i1_e2", lambda x: mp.exp(-x) * I(1)(x), 8.0, 16.0, "e^-x I1(x), v = x"),
        ("i1_w", scaled_i(1, 16), 0.0, 1.0, "sqrt(x) e^-x I1(x), v = 16 / x"),
        ("p0", hankel(0, False), 0.0, 1.0, "Hankel P0, v = 8 / x"),
        ("q0", hankel(0, True), 0.0, 1.0, "Hankel Q0 / v, v = 8 / x"),
        ("p1", hankel(1, False), 0.0, 1.0, "Hankel P1, v = 8 / x"),
        ("q1", hankel(1, True), 0.0, 1.0, "Hankel Q1 / v, v = 8 / x"),
    ]
    for name, f, a, b, what in rows:
        n, coef, lo, err = mc.fit(f, a, b)
        m, r = (a + b) / 2, (b - a) / 2
        print(f"/* {what} on [{a}, {b}]: degree {n}, {err:.2f} ulp evaluated in double */")
        print(f"static __device__ const double __rg_{name}[{n + 1}] = {{ {', '.join(c.hex() for c in coef)} }};")
        print(f"#define __RG_{name.upper()}(v) __rg_horner_dd0(__rg_{name}, {n + 1}, ((v) - {m!r}) / {r!r}, {lo.hex()})")


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def rand32(a, b):
    return f32(random.uniform(a, b))


def dd(v):
    hi = float(v)
    return hi, float(v - mp.mpf(hi))


def ref():
    mp.mp.prec = 160
    random.seed(20261125)
    funcs = {"j0": J(0), "j1": J(1), "y0": Y(0), "y1": Y(1), "i0": I(0), "i1": I(1)}
    zeros = {"j0": [2.404825557695773, 5.520078110286311, 8.653727912911013],
             "j1": [3.831705970207512, 7.015586669815619],
             "y0": [0.8935769662791675, 3.957678419314858, 7.086051060301773],
             "y1": [2.197141326031017, 5.429681040794135]}
    out = ["/* Reference values for tests/cuda/bessel.cu, computed with mpmath (160 bits) by",
           "   tools/bessel_coefficients.py ref: x, then the exact value as a double-double. */"]
    for name, f in funcs.items():
        xs = []
        if name in ("i0", "i1"):
            xs += [rand32(0, 4) for _ in range(30)] + [rand32(4, 16) for _ in range(20)]
            xs += [rand32(16, 700) for _ in range(20)] + [1e-300, 1e-10, 0.5, 700.5, 713.0]
            xs += [-x for x in xs[:10]]
        else:
            xs += [rand32(0.001, 8) for _ in range(60)]
            for z in zeros.get(name, []):
                xs += [z + d for d in (0.0, 1e-9, -1e-9, 1e-5, -3e-4, 0.01)]
            xs += [rand32(8, 100) for _ in range(20)] + [f32(10 ** random.uniform(2, 15)) for _ in range(10)]
            xs += [-rand32(0, 30) for _ in range(10)] if name[0] == "j" else [1e-300, 1e-20, 1e-5]
        out.append(f"static const double ref_{name}[][3] = {{")
        for x in xs:
            hi, lo = dd(f(mp.mpf(x)))
            out.append(f"    {{{float(x).hex()}, {hi.hex()}, {lo.hex()}}},")
        out.append("};")
    out.append("static const double ref_n[][5] = {")
    for n in (2, 3, 5, 10, 50, 128):
        for x in [rand32(0.01, 2 * n + 20) for _ in range(12)] + [1e-4, 0.5 * n, n + 0.5, 300.0]:
            for kind, f in ((0, mp.besselj), (1, mp.bessely)):
                hi, lo = dd(f(n, mp.mpf(x)))
                hs, ls = ("-__builtin_inf()", "0.0") if hi == float("-inf") else (hi.hex(), lo.hex())
                out.append(f"    {{{kind}, {n}, {float(x).hex()}, {hs}, {ls}}},")
    out.append("};")
    print("\n".join(out))


if __name__ == "__main__":
    {"tables": tables, "ref": ref}[sys.argv[1] if len(sys.argv) > 1 else "tables"]()
