#!/usr/bin/env python3
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""Simulated image frames of faint point targets in noise, for track-before-detect.

``tbd_scene`` draws frames of ``width`` x ``height`` pixels (row major, x the column,
y the row) that hold point targets moving at constant velocity, blurred by a Gaussian
point-spread function, in additive Gaussian noise or as the envelope of a magnitude
detector (Rayleigh noise); it keeps the true position of every target in every frame.
``tbd_scene_source`` is the GNU Radio source block around it, the natural input of
``st_tbd_ff``.

Targets. Each target has a sub-pixel position (x, y) in pixels (pixel (i, j) covers
[i - 0.5, i + 0.5) x [j - 0.5, j + 0.5)) and a constant velocity (vx, vy) in pixels per
frame; in frame n it is at (x0 + n vx, y0 + n vy). Its image is the Gaussian
point-spread function

    s(i, j) = A exp(-((i - x)^2 + (j - y)^2) / (2 psf_sigma_px^2))

with peak amplitude A (the continuous peak: a target between pixels has a smaller
largest pixel). A target lives until its centre leaves the grid; a new one is born in
the same frame, so the scene always holds ``ntargets`` targets. Births: position
uniform over the grid less ``birth_margin_px`` on each side, at least
``min_separation_px`` from every other live target; direction towards a uniformly
drawn point of the central half of the grid (so a track crosses the grid rather than
leaving at once); speed uniform in [speed_min, speed_max] pixels per frame.

Noise and the per-frame SNR. ``noise_power`` is N, the mean power of the noise at the
detector input; ``snr_db`` is the peak target power over it:

    SNR = 10 log10(A^2 / N)

- ``noise="gaussian"``: X(i, j) = s(i, j) + n, n real Gaussian, zero mean, variance N
  (a linear, zero-mean detector output: SNR is the squared peak amplitude over the
  noise variance).
- ``noise="rayleigh"``: X(i, j) = |s(i, j) + n|, n circular complex Gaussian with
  E|n|^2 = N (the envelope of a coherent receiver, the target's echo phase being
  irrelevant to the envelope): noise-only cells are Rayleigh distributed with mean
  sqrt(pi N) / 2 and variance (1 - pi/4) N; target cells are Rician. SNR is the
  radar's usual peak signal power over noise power. The envelope is not
  mean-removed: a detector's threshold (calibrated on noise-only frames) absorbs the
  noise floor.

Both definitions put the same A at the same SNR, so the two noise models can be
compared at one SNR scale.

Truth. ``frames(count)`` returns the frames and a structured array with one record per
target per frame: frame, track (a track id from 0, counting births), x, y, vx, vy and
age (frames since birth, from 0).

Everything is vectorised NumPy (only the pixels within 4 psf_sigma_px of a target are
computed); the same seed gives the same frames and truth.
"""

import math

import numpy as np
import pmt
from gnuradio import gr

from ..common.work_errors import stop_on_error

NOISE_MODELS = ("gaussian", "rayleigh")

#: dtype of the truth records of tbd_scene.frames().
TRUTH_DTYPE = np.dtype([("frame", np.int64), ("track", np.int64), ("x", np.float64),
                        ("y", np.float64), ("vx", np.float64), ("vy", np.float64),
                        ("age", np.int64)])


def _finite(name, value):
    value = float(value)
    if not math.isfinite(value):
        raise ValueError("%s: must be finite, got %r" % (name, value))
    return value


class tbd_scene:
    """Point targets with constant velocity in Gaussian or Rayleigh noise (module doc).

    ``seed`` fixes the births and the noise; ``frames()`` continues the same scene from
    call to call (frame numbers count from 0 since construction or ``reset()``).
    """

    def __init__(self, width=96, height=96, ntargets=4, snr_db=6.0, noise="gaussian",
                 noise_power=1.0, psf_sigma_px=1.0, speed_min=0.3, speed_max=1.0,
                 birth_margin_px=4.0, min_separation_px=8.0, seed=0):
        width, height, ntargets = int(width), int(height), int(ntargets)
        if width < 1:
            raise ValueError("width: must be >= 1, got %d" % width)
        if height < 1:
            raise ValueError("height: must be >= 1, got %d" % height)
        if ntargets < 0:
            raise ValueError("ntargets: must be >= 0, got %d" % ntargets)
        if noise not in NOISE_MODELS:
            raise ValueError("noise: must be 'gaussian' or 'rayleigh', got %r" % (noise,))
        self.snr_db = _finite("snr_db", snr_db)
        noise_power = _finite("noise_power", noise_power)
        if noise_power <= 0:
            raise ValueError("noise_power: must be > 0, got %r" % noise_power)
        psf_sigma_px = _finite("psf_sigma_px", psf_sigma_px)
        if psf_sigma_px <= 0:
            raise ValueError("psf_sigma_px: must be > 0, got %r" % psf_sigma_px)
        speed_min = _finite("speed_min", speed_min)
        speed_max = _finite("speed_max", speed_max)
        if not 0 <= speed_min <= speed_max:
            raise ValueError("speed_min, speed_max: must satisfy 0 <= speed_min <= "
                             "speed_max, got %r, %r" % (speed_min, speed_max))
        birth_margin_px = _finite("birth_margin_px", birth_margin_px)
        if not 0 <= birth_margin_px < min(width, height) / 2.0:
            raise ValueError("birth_margin_px: must be in [0, min(width, height) / 2), "
                             "got %r" % birth_margin_px)
        min_separation_px = _finite("min_separation_px", min_separation_px)
        if min_separation_px < 0:
            raise ValueError("min_separation_px: must be >= 0, got %r" % min_separation_px)

        self.width, self.height, self.ntargets = width, height, ntargets
        self.noise = noise
        self.noise_power = noise_power
        self.psf_sigma_px = psf_sigma_px
        self.speed_min, self.speed_max = speed_min, speed_max
        self.birth_margin_px = birth_margin_px
        self.min_separation_px = min_separation_px
        self.seed = int(seed)
        self.reset()

    # ------------------------------------------------------------------------------
    @property
    def amplitude(self):
        """A, the peak amplitude of every target: sqrt(N 10^(SNR/10))."""
        return math.sqrt(self.noise_power * 10.0 ** (self.snr_db / 10.0))

    @property
    def noise_mean(self):
        """Mean of a noise-only cell: 0 (Gaussian) or sqrt(pi N) / 2 (Rayleigh)."""
        return 0.0 if self.noise == "gaussian" else math.sqrt(math.pi * self.noise_power) / 2

    @property
    def noise_std(self):
        """Standard deviation of a noise-only cell: sqrt(N) or sqrt((1 - pi/4) N)."""
        if self.noise == "gaussian":
            return math.sqrt(self.noise_power)
        return math.sqrt((1.0 - math.pi / 4.0) * self.noise_power)

    def set_snr_db(self, snr_db):
        """Target SNR for the frames drawn from now on."""
        self.snr_db = _finite("snr_db", snr_db)

    def reset(self):
        """Back to frame 0 of the same draw (same seed: same births and noise)."""
        self._rng = np.random.default_rng(self.seed)
        self._frame = 0
        self._next_track = 0
        # Live targets: rows of (track, x0, y0, vx, vy, birth frame); position in frame
        # n is (x0 + (n - birth) vx, y0 + (n - birth) vy).
        self._targets = np.zeros((0, 6))
        for _ in range(self.ntargets):
            self._birth(self._frame)

    # ------------------------------------------------------------------------------
    def _positions(self, frame):
        t = self._targets
        age = frame - t[:, 5]
        return t[:, 1] + age * t[:, 3], t[:, 2] + age * t[:, 4]

    def _inside(self, x, y):
        return (x >= -0.5) & (x < self.width - 0.5) & (y >= -0.5) & (y < self.height - 0.5)

    def _birth(self, frame):
        rng = self._rng
        m = self.birth_margin_px
        xs, ys = self._positions(frame)
        for _attempt in range(100):
            x0 = rng.uniform(m, self.width - 1 - m)
            y0 = rng.uniform(m, self.height - 1 - m)
            if xs.size == 0 or np.min(np.hypot(xs - x0, ys - y0)) >= self.min_separation_px:
                break
        # Aim through the central half of the grid, so the track crosses it.
        ax = rng.uniform(0.25, 0.75) * (self.width - 1)
        ay = rng.uniform(0.25, 0.75) * (self.height - 1)
        heading = math.atan2(ay - y0, ax - x0) if (ax, ay) != (x0, y0) else 0.0
        speed = rng.uniform(self.speed_min, self.speed_max)
        row = [self._next_track, x0, y0, speed * math.cos(heading),
               speed * math.sin(heading), frame]
        self._next_track += 1
        self._targets = np.vstack([self._targets, row])

    def _render(self, xs, ys):
        """The targets' noise-free image s (height, width), float64."""
        image = np.zeros((self.height, self.width))
        amp, sig = self.amplitude, self.psf_sigma_px
        reach = int(math.ceil(4.0 * sig))
        for x, y in zip(xs, ys):
            i0, j0 = int(round(x)), int(round(y))
            i = np.arange(max(0, i0 - reach), min(self.width, i0 + reach + 1))
            j = np.arange(max(0, j0 - reach), min(self.height, j0 + reach + 1))
            if i.size == 0 or j.size == 0:
                continue
            gx = np.exp(-((i - x) ** 2) / (2 * sig * sig))
            gy = np.exp(-((j - y) ** 2) / (2 * sig * sig))
            image[j[0]:j[-1] + 1, i[0]:i[-1] + 1] += amp * np.outer(gy, gx)
        return image

    def frames(self, count):
        """The next ``count`` frames, float32 (count, height, width), and their truth
        (structured array of TRUTH_DTYPE, one record per live target per frame)."""
        count = int(count)
        if count < 0:
            raise ValueError("count: must be >= 0, got %d" % count)
        out = np.empty((count, self.height, self.width), np.float32)
        truth = []
        shape = (self.height, self.width)
        for k in range(count):
            n = self._frame
            xs, ys = self._positions(n)
            gone = ~self._inside(xs, ys)
            if gone.any():
                self._targets = self._targets[~gone]
                for _ in range(int(gone.sum())):
                    self._birth(n)
                xs, ys = self._positions(n)
            t = self._targets
            for r in range(t.shape[0]):
                truth.append((n, int(t[r, 0]), xs[r], ys[r], t[r, 3], t[r, 4],
                              int(n - t[r, 5])))
            signal = self._render(xs, ys)
            if self.noise == "gaussian":
                frame = signal + math.sqrt(self.noise_power) * self._rng.standard_normal(shape)
            else:
                scale = math.sqrt(self.noise_power / 2.0)
                re = signal + scale * self._rng.standard_normal(shape)
                im = scale * self._rng.standard_normal(shape)
                frame = np.hypot(re, im)
            out[k] = frame
            self._frame += 1
        return out, np.array(truth, dtype=TRUTH_DTYPE)


class tbd_scene_source(gr.sync_block):
    """TBD Scene Source (CUDA DSP): image frames of point targets in noise.

    One output, a vector of width * height floats per item (a frame, row major), the
    input of st_tbd_ff. ``nframes`` frames, then the end of the flowgraph (0: runs
    until stopped). Every frame carries a tag "frame" (uint64, the frame number) and,
    for every live target, a tag "target" holding the dict {track, x, y, vx, vy, age}
    (the truth of that frame). truth_file: when not empty, the truth of every frame
    produced is written there (.npz, the arrays of TRUTH_DTYPE's fields plus width,
    height, snr_db, noise, noise_power, psf_sigma_px) when the flowgraph stops.

    See tbd_scene for the model and the definition of snr_db.
    """

    def __init__(self, width=96, height=96, ntargets=4, snr_db=6.0, noise="gaussian",
                 noise_power=1.0, psf_sigma_px=1.0, speed_min=0.3, speed_max=1.0,
                 nframes=200, seed=0, truth_file=""):
        scene = tbd_scene(width, height, ntargets, snr_db, noise, noise_power,
                          psf_sigma_px, speed_min, speed_max, seed=seed)
        if int(nframes) < 0:
            raise ValueError("nframes: must be >= 0 (0: run until stopped), got %r"
                             % (nframes,))
        gr.sync_block.__init__(self, name="tbd_scene_source", in_sig=None,
                               out_sig=[(np.float32, scene.width * scene.height)])
        self.scene = scene
        self._nframes = int(nframes)
        self._truth_file = truth_file
        self._truth = []
        self._frame_key = pmt.intern("frame")
        self._target_key = pmt.intern("target")
        self._srcid = pmt.intern("tbd_scene_source")

    def truth(self):
        """Truth of every frame produced so far (structured array, TRUTH_DTYPE)."""
        if not self._truth:
            return np.zeros(0, dtype=TRUTH_DTYPE)
        return np.concatenate(self._truth)

    def set_snr_db(self, snr_db):
        """Target SNR (dB) of the frames produced from now on."""
        self.scene.set_snr_db(snr_db)

    @stop_on_error
    def work(self, input_items, output_items):
        out = output_items[0]
        start = self.nitems_written(0)
        n = len(out)
        if self._nframes:
            n = min(n, self._nframes - start)
            if n <= 0:
                return -1  # WORK_DONE
        # A few frames per call keep the latency of a real-time sensor.
        n = min(n, max(1, (1 << 22) // (4 * out.shape[1])))
        frames, truth = self.scene.frames(n)
        out[:n] = frames.reshape(n, -1)
        self._truth.append(truth)
        for k in range(n):
            self.add_item_tag(0, start + k, self._frame_key, pmt.from_uint64(start + k),
                              self._srcid)
        for rec in truth:
            d = pmt.make_dict()
            d = pmt.dict_add(d, pmt.intern("track"), pmt.from_uint64(int(rec["track"])))
            for key in ("x", "y", "vx", "vy"):
                d = pmt.dict_add(d, pmt.intern(key), pmt.from_double(float(rec[key])))
            d = pmt.dict_add(d, pmt.intern("age"), pmt.from_uint64(int(rec["age"])))
            self.add_item_tag(0, int(rec["frame"]), self._target_key, d, self._srcid)
        return n

    def stop(self):
        if self._truth_file:
            t = self.truth()
            sc = self.scene
            np.savez_compressed(self._truth_file, width=sc.width, height=sc.height,
                                snr_db=sc.snr_db, noise=sc.noise,
                                noise_power=sc.noise_power, psf_sigma_px=sc.psf_sigma_px,
                                **{name: t[name] for name in TRUTH_DTYPE.names})
        return True
