#!/usr/bin/env python3
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Write a synthetic SLC pair with a known offset field, and its PRM files.

For cudadsp_xcorr's truth tests and speed runs (docs/apps/cudadsp_xcorr.md). Writes, in
--outdir: master.SLC, aligned.SLC (interleaved complex int16 I, Q in host byte order,
row-major, GMTSAR's SLC format; or complex float32 with --format cfloat32), master.PRM,
aligned.PRM (GMTSAR key = value lines, SLC_file relative to --outdir: run cudadsp_xcorr
there) and truth.json (the offset field and every parameter).

The scene. One band-limited complex speckle field S, defined at every real position:

    S(Y, X) = sum_{m,n} w[m, n] h_a(Y - m) h_r(X - n)

w: white complex Gaussian noise on the integer grid (unit variance per component,
generated in row blocks from --seed, so any strip can be made on its own); h_B(t) = B
sinc(B t) times a Kaiser window on |t| < taps/2: a low-pass of bandwidth B (a fraction
of the sampling rate, --bandwidth-range and --bandwidth-azimuth, as a SAR focuser
leaves it). The master pixel (y, x) is S(y, x). The aligned pixel (y', x') is S at the
master position (Y, X) whose content moved there:

    y' = Y + dy(Y, X),   x' = X + dx(Y, X)
    dx(Y, X) = dx0 + dx_per_col X + dx_per_row Y,   dy likewise

(the offsets are affine; the pair is solved exactly for (Y, X) per pixel). So a feature
at master (row y, column x) lies in the aligned file at (y + dy, x + dx): GMTSAR's dx,
dy of the patch at x, y are these values (its rshift/ashift are pre-shifts that its
output adds back). Both images are samples of the same continuous field, so constant,
sub-pixel and linearly varying offsets are exact, not the result of interpolating
discrete samples: with constant offsets the kernel is evaluated at the exact phase; with
varying ones at phases quantised to 1/4096 pixel, and the range pass takes each input
row's positions from the output row that maps onto it, which is exact unless dx depends
on the row (dx_per_row, or dy's gradients coupled with dx's); the error is then about
|dx_per_row| * taps / 2 pixels (truth.json gives the bound; --self-check measures it).

Decorrelation: aligned = g S(Y, X) + sqrt(1 - g^2) N(y', x') with N an independent
speckle field of the same spectrum and g = --coherence.

Quantisation: both images are scaled by one factor so that each component has standard
deviation --std (default 800: amplitudes of a few hundred to a few thousand, like ALOS
or ERS SLCs), rounded and clipped to int16 (clipped samples are counted and reported).

Speed: strips of --rows rows; constant offsets (the common case) take two FIR passes
per field and strip, ~1 minute for an 11304 x 9216 pair on one core (numpy).

Example: the paper's largest ALOS-1 case, offsets (range +2.25, azimuth -1.5) px, PRM
pre-shifts 2 and -1, then the drop-in (run in the output folder):

    tests/support/make_synthetic_slc.py --width 11304 --height 9216 --dx 2.25 --dy -1.5 \\
        --rshift 2 --ashift -1 --outdir /tmp/alos
    cd /tmp/alos && cudadsp_xcorr master.PRM aligned.PRM -nx 20 -ny 50 \\
        -xsearch 128 -ysearch 128
"""

import argparse
import json
import math
import os
import sys
import time

import numpy as np

PHASES = 4096  # phase quantisation of the varying-offset path (1/4096 pixel)


def kernel(t, bandwidth, taps, beta):
    """h(t) = B sinc(B t) * Kaiser window on |t| < taps/2 (0 outside)."""
    t = np.asarray(t, dtype=np.float64)
    u = 2.0 * t / taps
    inside = np.abs(u) < 1.0
    win = np.where(inside, np.i0(beta * np.sqrt(np.clip(1.0 - u * u, 0.0, None))), 0.0)
    return bandwidth * np.sinc(bandwidth * t) * win / np.i0(beta)


def tap_weights(frac, bandwidth, taps, beta):
    """Weights of samples n0 - (taps/2 - 1) + k, k = 0..taps-1, for the position n0 + frac
    (frac in [0, 1]): h(frac + taps/2 - 1 - k). frac may be an array (leading axes)."""
    k = np.arange(taps)
    frac = np.asarray(frac, dtype=np.float64)
    return kernel(frac[..., None] + (taps // 2 - 1) - k, bandwidth, taps, beta)


class white_noise:
    """Complex white Gaussian noise w[m, n] of one field, for rows m (any integer) and
    columns n in [-pad, width + pad), made in blocks of rows from (seed, field, block),
    so every strip sees the same numbers."""

    block_rows = 128

    def __init__(self, seed, field, width, pad):
        self.seed, self.field, self.width, self.pad = seed, field, width, pad
        self.cache = {}

    def _block(self, b):
        if b not in self.cache:
            rng = np.random.default_rng([self.seed, self.field, b + 2**31])
            cols = self.width + 2 * self.pad
            z = rng.standard_normal((self.block_rows, cols, 2), dtype=np.float32)
            self.cache[b] = z.view(np.complex64)[..., 0]
        return self.cache[b]

    def rows(self, m0, m1):
        """Rows [m0, m1), all columns: an array indexed [m - m0, n + pad]."""
        br = self.block_rows
        b0, b1 = m0 // br, (m1 - 1) // br
        for b in [b for b in self.cache if b < b0]:  # strips move down the image
            del self.cache[b]
        parts = [self._block(b) for b in range(b0, b1 + 1)]
        whole = parts[0] if len(parts) == 1 else np.concatenate(parts, axis=0)
        return whole[m0 - b0 * br:m1 - b0 * br]


def fir_const(a, start, weights, axis, count):
    """out[i] = sum_k a[start + i + k] * weights[k] along axis, i = 0..count-1."""
    taps = len(weights)
    if axis == 1:
        win = np.lib.stride_tricks.sliding_window_view(a[:, start:start + count + taps - 1],
                                                       taps, axis=1)
    else:
        win = np.lib.stride_tricks.sliding_window_view(a[start:start + count + taps - 1],
                                                       taps, axis=0)
    return np.einsum('ijk,k->ij', win, weights.astype(np.complex64))


def fir_gather(a, first, phase, table, axis):
    """out[i, j] = sum_k a[first[i, j] + k, j] * table[phase[i, j], k] (axis 0), or
    a[i, first[i, j] + k] (axis 1): per-pixel taps and quantised phases."""
    out = np.zeros(first.shape, np.complex64)
    for k in range(table.shape[1]):
        vals = np.take_along_axis(a, first + k, axis=axis)
        out += vals * table[phase, k].astype(np.float32)
    return out


class scene:
    """The speckle field S, the decorrelation field N and the offset field of one pair.

    min_pad widens the column padding of the noise blocks and noise_field picks N's
    random stream, so that a stack (tools/bench-xcorr-stack) builds several scenes on
    one S (same seed and padding: one master) with independent N."""

    def __init__(self, args, min_pad=0, noise_field=1):
        self.a = args
        self.taps = args.taps
        self.beta = args.kaiser_beta
        self.br, self.ba = args.bandwidth_range, args.bandwidth_azimuth
        self.dx = (args.dx, args.dx_per_col, args.dx_per_row)
        self.dy = (args.dy, args.dy_per_col, args.dy_per_row)
        self.constant = args.dx_per_col == 0 and args.dx_per_row == 0 and \
            args.dy_per_col == 0 and args.dy_per_row == 0
        # Column padding: the largest |dx| anywhere plus the kernel.
        corners = [(0, 0), (0, args.width), (args.height, 0), (args.height, args.width)]
        max_dx = max(abs(self.dx[0] + self.dx[1] * x + self.dx[2] * y) for y, x in corners)
        self.pad = max(int(math.ceil(max_dx)) + self.taps + 2, min_pad)
        self.S = white_noise(args.seed, 0, args.width, self.pad)
        self.N = white_noise(args.seed, noise_field, args.width, self.pad)
        self.table_r = tap_weights(np.arange(PHASES + 1) / PHASES, self.br, self.taps, self.beta)
        self.table_a = tap_weights(np.arange(PHASES + 1) / PHASES, self.ba, self.taps, self.beta)
        # Per-component standard deviation of S (w has 1 per component).
        h0r = tap_weights(0.0, self.br, self.taps, self.beta)
        h0a = tap_weights(0.0, self.ba, self.taps, self.beta)
        self.sigma = math.sqrt(float(np.sum(h0r**2) * np.sum(h0a**2)))
        # Solve y' = Y + dy(Y, X), x' = X + dx(Y, X) for (Y, X).
        a0, ax, ay = self.dx
        b0, bx, by = self.dy
        self.det = (1 + ax) * (1 + by) - ay * bx
        if self.det <= 0:
            raise SystemExit('error: the offset gradients fold the image (determinant %g)' % self.det)

    def master_pos(self, yp, xp):
        a0, ax, ay = self.dx
        b0, bx, by = self.dy
        u, v = xp - a0, yp - b0
        X = (u * (1 + by) - ay * v) / self.det
        Y = ((1 + ax) * v - bx * u) / self.det
        return Y, X

    def range_pos_for_row(self, m, xp):
        """X of the aligned pixel in column xp whose Y is m (the range pass's positions)."""
        a0, ax, ay = self.dx
        b0, bx, by = self.dy
        u = xp - a0
        v = (m * self.det + bx * u) / (1 + ax)  # yp - b0 for Y = m
        return (u * (1 + by) - ay * v) / self.det

    def field_integer(self, noise, y0, y1):
        """A field at integer positions, rows [y0, y1), all columns."""
        t, W, h = self.taps, self.a.width, self.taps // 2 - 1
        w_r = tap_weights(0.0, self.br, t, self.beta)
        w_a = tap_weights(0.0, self.ba, t, self.beta)
        w = noise.rows(y0 - h, y1 - h + t - 1)
        T = fir_const(w, self.pad - h, w_r, 1, W)
        return fir_const(T, 0, w_a, 0, y1 - y0)

    def aligned_signal(self, y0, y1):
        """S at the master positions of aligned rows [y0, y1)."""
        t, W, h = self.taps, self.a.width, self.taps // 2 - 1
        if self.constant:
            X0 = -self.dx[0]  # X = x' + X0, Y = y' + Y0
            Y0 = -self.dy[0]
            nx0, fx = math.floor(X0), X0 - math.floor(X0)
            ny0, fy = math.floor(Y0), Y0 - math.floor(Y0)
            w_r = tap_weights(fx, self.br, t, self.beta)
            w_a = tap_weights(fy, self.ba, t, self.beta)
            m0 = y0 + ny0 - h
            w = self.S.rows(m0, y1 + ny0 - h + t - 1)
            T = fir_const(w, self.pad + nx0 - h, w_r, 1, W)
            return fir_const(T, 0, w_a, 0, y1 - y0)
        xp = np.arange(W, dtype=np.float64)
        yp = np.arange(y0, y1, dtype=np.float64)
        Y, X = self.master_pos(yp[:, None], xp[None, :])
        mfloor = np.floor(Y).astype(np.int64)
        m_lo = int(mfloor.min()) - h
        m_hi = int(mfloor.max()) - h + t
        w = self.S.rows(m_lo, m_hi)
        m = np.arange(m_lo, m_hi, dtype=np.float64)
        Xm = self.range_pos_for_row(m[:, None], xp[None, :])
        n0 = np.floor(Xm)
        ph = np.rint((Xm - n0) * PHASES).astype(np.int64)
        first = n0.astype(np.int64) - h + self.pad
        T = fir_gather(w, first, ph, self.table_r, axis=1)
        ph = np.rint((Y - mfloor) * PHASES).astype(np.int64)
        return fir_gather(T, mfloor - h - m_lo, ph, self.table_a, axis=0)

    def exact_aligned(self, yp, xp):
        """S at the master position of aligned pixel (yp, xp) by the direct double sum
        with the exact kernel (for --self-check)."""
        Y, X = self.master_pos(float(yp), float(xp))
        t, h = self.taps, self.taps // 2 - 1
        my, mx = math.floor(Y), math.floor(X)
        ha = tap_weights(Y - my, self.ba, t, self.beta)
        hr = tap_weights(X - mx, self.br, t, self.beta)
        w = self.S.rows(my - h, my - h + t)[:, mx - h + self.pad:mx - h + self.pad + t]
        return complex(ha @ w.astype(np.complex128) @ hr)


def quantise(img, scale, fmt):
    """The bytes of a complex64 strip scaled by scale, as int16 I, Q (rounded, clipped to
    +-32767) or float32 I, Q; and the number of clipped components."""
    v = img.view(np.float32) * np.float32(scale)
    if fmt != 'int16':
        return v.astype(np.float32).tobytes(), 0
    v = np.rint(v)
    clipped = int(np.count_nonzero(np.abs(v) > 32767))
    np.clip(v, -32767, 32767, out=v)
    return v.astype(np.int16).tobytes(), clipped


def write_prm(path, slc, width, height, prf, rshift, ashift):
    lines = [
        ('input_file', 'synthetic.raw'),
        ('num_rng_bins', width),
        ('bytes_per_line', 4 * width),
        ('good_bytes_per_line', 4 * width),
        ('PRF', '%.6f' % prf),
        ('first_line', 1),
        ('num_patches', 1),
        ('num_valid_az', height),
        ('nrows', height),
        ('SLC_file', slc),
        ('rshift', rshift),
        ('ashift', ashift),
        ('sub_int_r', '0.0'),
        ('sub_int_a', '0.0'),
    ]
    with open(path, 'w') as f:
        for k, v in lines:
            f.write('%-24s= %s\n' % (k, v))


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split('\n', 2)[2])
    p.add_argument('--width', type=int, required=True, help='columns (range samples)')
    p.add_argument('--height', type=int, required=True, help='rows (azimuth lines)')
    p.add_argument('--outdir', default='.', help='output folder (created)')
    p.add_argument('--dx', type=float, default=0.0, help='range offset at (0, 0), px')
    p.add_argument('--dy', type=float, default=0.0, help='azimuth offset at (0, 0), px')
    p.add_argument('--dx-per-col', type=float, default=0.0, help='d(dx)/d(column)')
    p.add_argument('--dx-per-row', type=float, default=0.0, help='d(dx)/d(row)')
    p.add_argument('--dy-per-col', type=float, default=0.0, help='d(dy)/d(column)')
    p.add_argument('--dy-per-row', type=float, default=0.0, help='d(dy)/d(row)')
    p.add_argument('--coherence', type=float, default=1.0, help='g in [0, 1] (default 1)')
    p.add_argument('--std', type=float, default=800.0,
                   help='standard deviation per component after scaling (default 800)')
    p.add_argument('--bandwidth-range', type=float, default=0.8,
                   help='range bandwidth, fraction of the sampling rate (default 0.8)')
    p.add_argument('--bandwidth-azimuth', type=float, default=0.8,
                   help='azimuth bandwidth, fraction of the PRF (default 0.8)')
    p.add_argument('--taps', type=int, default=16, help='kernel length (even, default 16)')
    p.add_argument('--kaiser-beta', type=float, default=6.0, help='Kaiser window beta')
    p.add_argument('--format', choices=['int16', 'cfloat32'], default='int16',
                   help='sample type of the SLC files (default int16)')
    p.add_argument('--rshift', type=int, default=0, help="aligned.PRM's rshift")
    p.add_argument('--ashift', type=int, default=0, help="aligned.PRM's ashift")
    p.add_argument('--prf', type=float, default=1679.902, help='master PRF, Hz')
    p.add_argument('--prf-aligned', type=float, default=None,
                   help='aligned PRF (default: the master\'s; GMTSAR then shifts the '
                   'aligned windows by (int)(y (PRF2 - PRF1)/PRF1) rows)')
    p.add_argument('--seed', type=int, default=1)
    p.add_argument('--rows', type=int, default=256, help='rows per strip (default 256)')
    p.add_argument('--self-check', type=int, default=0, metavar='N',
                   help='compare N aligned pixels with the direct double sum')
    p.add_argument('--quiet', action='store_true')
    a = p.parse_args()

    if a.width < 1 or a.height < 1:
        p.error('--width and --height must be positive')
    if a.taps < 4 or a.taps % 2:
        p.error('--taps must be even and >= 4')
    if not 0.0 <= a.coherence <= 1.0:
        p.error('--coherence must lie in [0, 1]')
    for b in (a.bandwidth_range, a.bandwidth_azimuth):
        if not 0.0 < b <= 1.0:
            p.error('bandwidths must lie in (0, 1]')
    if a.prf_aligned is None:
        a.prf_aligned = a.prf

    os.makedirs(a.outdir, exist_ok=True)
    ext = '.SLC' if a.format == 'int16' else '.cf32'
    names = ('master' + ext, 'aligned' + ext)
    sc = scene(a)
    scale = a.std / sc.sigma
    g = a.coherence
    gn = math.sqrt(max(0.0, 1.0 - g * g))

    rng = np.random.default_rng([a.seed, 99])
    checks = []
    if a.self_check > 0:
        margin = a.taps + 2
        ys = rng.integers(min(margin, a.height - 1), max(a.height - margin, 1), a.self_check)
        xs = rng.integers(min(margin, a.width - 1), max(a.width - margin, 1), a.self_check)
        checks = sorted(zip(ys.tolist(), xs.tolist()))
    check_values = {}

    t0 = time.time()
    clipped = [0, 0]
    with open(os.path.join(a.outdir, names[0]), 'wb') as fm, \
            open(os.path.join(a.outdir, names[1]), 'wb') as fa:
        for y0 in range(0, a.height, a.rows):
            y1 = min(a.height, y0 + a.rows)
            m = sc.field_integer(sc.S, y0, y1)
            s = sc.aligned_signal(y0, y1)
            for yy, xx in checks:
                if y0 <= yy < y1:
                    check_values[(yy, xx)] = complex(s[yy - y0, xx])
            if g < 1.0:
                s = g * s + np.complex64(gn) * sc.field_integer(sc.N, y0, y1)
            for i, (img, f) in enumerate(((m, fm), (s, fa))):
                data, n_clipped = quantise(img, scale, a.format)
                clipped[i] += n_clipped
                f.write(data)
            if not a.quiet and (y1 == a.height or (y0 // a.rows) % 8 == 7):
                print('rows %d / %d  (%.1f s)' % (y1, a.height, time.time() - t0),
                      file=sys.stderr)

    write_prm(os.path.join(a.outdir, 'master.PRM'), names[0], a.width, a.height, a.prf, 0, 0)
    write_prm(os.path.join(a.outdir, 'aligned.PRM'), names[1], a.width, a.height,
              a.prf_aligned, a.rshift, a.ashift)

    worst = None
    if checks:
        errs = [abs(check_values[c] - sc.exact_aligned(*c)) / (sc.sigma * math.sqrt(2))
                for c in checks]
        worst = float(max(errs))
    truth = {
        'description': 'a feature at master (row y, column x) lies in the aligned file '
                       'at (y + dy, x + dx); dx = dx0 + dx_per_col*x + dx_per_row*y, dy '
                       'likewise, at the master position. GMTSAR xcorr reports these dx, '
                       'dy (rshift/ashift included).',
        'width': a.width, 'height': a.height,
        'dx': {'dx0': a.dx, 'dx_per_col': a.dx_per_col, 'dx_per_row': a.dx_per_row},
        'dy': {'dy0': a.dy, 'dy_per_col': a.dy_per_col, 'dy_per_row': a.dy_per_row},
        'coherence': g, 'std_per_component': a.std, 'format': a.format,
        'bandwidth_range': a.bandwidth_range, 'bandwidth_azimuth': a.bandwidth_azimuth,
        'taps': a.taps, 'kaiser_beta': a.kaiser_beta, 'seed': a.seed,
        'rshift': a.rshift, 'ashift': a.ashift, 'prf': a.prf, 'prf_aligned': a.prf_aligned,
        'files': {'master': names[0], 'aligned': names[1],
                  'master_prm': 'master.PRM', 'aligned_prm': 'aligned.PRM'},
        'clipped_samples': {'master': clipped[0], 'aligned': clipped[1]},
        'position_error_bound_px': 0.0 if sc.constant else
        0.5 / PHASES + abs(a.dx_per_row) * a.taps / 2 + abs(a.dy_per_col * a.dx_per_row) * a.taps,
        'self_check_max_error_rel_std': worst,
        'seconds': round(time.time() - t0, 2),
    }
    with open(os.path.join(a.outdir, 'truth.json'), 'w') as f:
        json.dump(truth, f, indent=1)
    if not a.quiet:
        print('wrote %s, %s, master.PRM, aligned.PRM, truth.json in %s (%.1f s)%s%s' % (
            names[0], names[1], a.outdir, time.time() - t0,
            '; clipped %d + %d samples' % tuple(clipped) if any(clipped) else '',
            '; self-check: max error %.2e of the field std' % worst if worst is not None else ''),
            file=sys.stderr)


if __name__ == '__main__':
    main()
