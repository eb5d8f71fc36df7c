#!/usr/bin/env python3
"""Coefficients of rgdev's device math library (backend-user/include/math_functions.h)
that are not Taylor coefficients: polynomial fits computed for rgdev with mpmath.

    python3 tools/math_coefficients.py erfcx

prints, for each interval [a, b] of erfcx(x) = exp(x^2) erfc(x), the coefficients (highest
degree first) of a polynomial in u = (x - m) / r, its constant term a double-double, (m the midpoint, r the half width, both
chosen so that u is exact in double precision): the Chebyshev interpolant of the degree
that reaches 2^-60 relative error, converted to powers of u. The header's tables are this
output; rerun it to check them.
"""
import sys
from fractions import Fraction

import mpmath as mp

mp.mp.prec = 200


def cheb_fit(f, a, b, n):
    """Chebyshev interpolant of f on [a, b] with n + 1 nodes, as power-basis coefficients
    in u = (x - m) / r, lowest degree first."""
    m, r = (mp.mpf(a) + b) / 2, (mp.mpf(b) - a) / 2
    nodes = [mp.cos(mp.pi * (k + mp.mpf(1) / 2) / (n + 1)) for k in range(n + 1)]
    vals = [f(m + r * u) for u in nodes]
    c = []
    for j in range(n + 1):
        s = sum(vals[k] * mp.cos(mp.pi * j * (k + mp.mpf(1) / 2) / (n + 1)) for k in range(n + 1))
        c.append(2 * s / (n + 1))
    c[0] /= 2
    # T_j in powers of u
    power = [mp.mpf(0)] * (n + 1)
    t_prev, t_cur = [mp.mpf(1)], [mp.mpf(0), mp.mpf(1)]
    for j in range(n + 1):
        t = t_prev if j == 0 else t_cur if j == 1 else None
        if j >= 2:
            t = [mp.mpf(0)] + [2 * v for v in t_cur]
            for i, v in enumerate(t_prev):
                t[i] -= v
            t_prev, t_cur = t_cur, t
        for i, v in enumerate(t):
            power[i] += c[j] * v
    return power


def fma(a, b, c):
    """a * b + c rounded once, as the GPU's fma.rn.f64."""
    return float(Fraction(a) * Fraction(b) + Fraction(c))


def horner_double(coef, lo, u):
    """The header's evaluation in IEEE double arithmetic: Horner's rule with FMAs down to
    the linear term, then the constant term as a double-double (coef[-1] + lo)."""
    p = coef[0]
    for c in coef[1:-1]:
        p = fma(p, u, c)
    return coef[-1] + fma(p, u, lo)


def fit(f, a, b, target=mp.mpf(2) ** -60, maxdeg=40):
    m, r = (mp.mpf(a) + b) / 2, (mp.mpf(b) - a) / 2
    for n in range(4, maxdeg + 1):
        power = cheb_fit(f, a, b, n)
        worst = max(abs(sum(power[i] * u**i for i in range(n + 1)) / f(m + r * u) - 1)
                    for u in mp.linspace(-1, 1, 101))
        if worst < target:
            coef = [float(v) for v in reversed(power)]
            lo = float(power[0] - mp.mpf(coef[-1]))
            err = 0.0
            for u in mp.linspace(-1, 1, 1001):
                x = float(m + r * u)
                got = horner_double(coef, lo, (x - float(m)) / float(r))
                err = max(err, float(abs(mp.mpf(got) / f(mp.mpf(x)) - 1)) * 2**53)
            return n, coef, lo, err
    raise SystemExit(f"no fit on [{a}, {b}] up to degree {maxdeg}")


def erfcx(x):
    return mp.exp(x * x) * mp.erfc(x)


INTERVALS = {"erfcx": (erfcx, [(0.5, 1), (1, 2), (2, 4), (4, 8)])}

if __name__ == "__main__":
    name = sys.argv[1] if len(sys.argv) > 1 else "erfcx"
    f, intervals = INTERVALS[name]
    for a, b in intervals:
        n, coef, lo, err = fit(f, a, b)
        print(f"/* [{a}, {b}]: degree {n}, {err:.2f} ulp evaluated in double; constant term + {lo.hex()} */")
        print(", ".join(f"{c.hex()}" for c in coef))
