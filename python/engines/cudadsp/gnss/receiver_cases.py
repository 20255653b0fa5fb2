#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
'''
The recordings on which the receiver (receive, cudadsp_gnss) is judged, with their
truth: qa_gps_receiver's scenario (tests/engine/qa_gps_receiver.cc). A static receiver
near Vienna sees the nominal constellation (gps_nominal_constellation, 10-bit week
300, toe 345600 s) above 10 degrees at 45 dB-Hz, with the Klobuchar ionosphere and no
troposphere; sample 0 falls 0.45 s before subframe 1 of a frame, so the ephemerides are
complete after about 18.5 s and the first fix comes at 19.45 s. Page 18 comes only at
about 24.5 s: the receiver is given the Klobuchar parameters up front.

With Galileo (mixed_scenario): the nominal Walker 24/3/1 (galileo_nominal_constellation,
t0e the same, IODnav GALILEO_IODNAV) beside GPS, E1-B with I/NAV and the E1-C pilot, the
satellite clocks keeping GST, GGTO (GST - GPS time) off GPS time. Its I/NAV sub-frames
start with GPS's frames: at sample 0 of scenario() a sub-frame begins 0.45 s later,
words 2 and 4 at 0 to 4 s of it, 1, 3 and 5 at 20 to 26 s (galileo_inav_encode).

Used by the package's and the tool's tests (qa_receiver, qa_reacquisition,
qa_receiver_galileo, tests/apps/qa_gnss_tool.py, tests/apps/qa_gnss_tool_galileo.py).
'''

import numpy

from .._engines import (galileo_nominal_constellation, gnss_geodetic_to_ecef,
                        gps_constellation_scenario, gps_nominal_constellation)

WEEK_10_BIT = 300
# The continuous week of WEEK_10_BIT in the era of the 2020s (resolves the 10-bit week).
REFERENCE_WEEK = 2348
TOE_S = 345600.0
SUBFRAME_1_TOW_S = 30.0 * 11542  # a frame whose subframe 4 is page 18
START_TOW_S = SUBFRAME_1_TOW_S - 0.45
RECEIVER_GEODETIC = (48.2, 16.37, 200.0)  # degrees, degrees, metres
KLOBUCHAR = (1.1176e-8, 7.4506e-9, -5.9605e-8, -5.9605e-8,
             90112.0, 0.0, -196608.0, -65536.0)
CN0_DBHZ = 45.0
# The acquisition's floor: two samples a chip.
SAMPLE_RATE_HZ = 2.048e6
# int16 scale of unit-power noise: the signal's few bits above it survive rounding.
CI16_SCALE = 300.0
GALILEO_IODNAV = 77
# The GST week of REFERENCE_WEEK: GST week 0 is GPS week 1024.
GST_WEEK = REFERENCE_WEEK - 1024


def receiver_ecef():
    return numpy.array(gnss_geodetic_to_ecef(*RECEIVER_GEODETIC))


def scenario(duration_s, sample_rate_hz=SAMPLE_RATE_HZ, seed=3):
    '''The scenario of duration_s (gps_constellation_scenario): its signal() makes the
    samples, truth() and prn() say what they hold.'''
    return gps_constellation_scenario(
        gps_nominal_constellation(WEEK_10_BIT, TOE_S), list(receiver_ecef()), START_TOW_S,
        duration_s, sample_rate_hz, cn0_dbhz=CN0_DBHZ, klobuchar=list(KLOBUCHAR),
        seed=seed)


def mixed_scenario(duration_s, gps_prns, galileo_prns, ggto_s, start_offset_s=0.0,
                   sample_rate_hz=SAMPLE_RATE_HZ, seed=3):
    '''The scenario with the GPS satellites gps_prns and the Galileo ones galileo_prns
    of the nominal constellations (each left out below 10 degrees), the Galileo clocks
    ggto_s (GST - GPS time) off GPS time, sample 0 start_offset_s after scenario()'s.'''
    gps = [e for e in gps_nominal_constellation(WEEK_10_BIT, TOE_S) if e.prn in gps_prns]
    galileo = [m for m in galileo_nominal_constellation(TOE_S, GALILEO_IODNAV)
               if m.ephemeris.svid in galileo_prns]
    return gps_constellation_scenario(
        gps, list(receiver_ecef()), START_TOW_S + start_offset_s, duration_s,
        sample_rate_hz, cn0_dbhz=CN0_DBHZ, klobuchar=list(KLOBUCHAR), seed=seed,
        galileo=galileo, galileo_week=GST_WEEK, gst_minus_gps_s=ggto_s)


# Noise power of satellite_alone(): its noise, 60 dB below the scenario's, is left out.
_ALONE_NOISE_POWER = 1e-6


def satellite_alone(prn, duration_s, sample_rate_hz=SAMPLE_RATE_HZ, seed=3):
    '''The scenario's signal of one satellite with (next to) no noise: its samples are
    that satellite's contribution to scenario()'s, the same amplitude (C/N0 raised as
    the noise is lowered) and the same geometry.'''
    ephemerides = [e for e in gps_nominal_constellation(WEEK_10_BIT, TOE_S)
                   if e.prn == prn]
    return gps_constellation_scenario(
        ephemerides, list(receiver_ecef()), START_TOW_S, duration_s, sample_rate_hz,
        cn0_dbhz=CN0_DBHZ - 10.0 * numpy.log10(_ALONE_NOISE_POWER),
        klobuchar=list(KLOBUCHAR), noise_power=_ALONE_NOISE_POWER, seed=seed)


def write_ci16(path, case, duration_s, sample_rate_hz=SAMPLE_RATE_HZ, block_s=1.0,
               absences=()):
    '''The first duration_s of the case's signal (made at sample_rate_hz) as
    interleaved int16 I/Q (GNSS-SDR's ishort) in path, a block at a time.

    absences: (alone, start_s, end_s) each: the satellite_alone() scenario of a
    satellite the case holds, whose contribution is taken out of the samples from
    start_s to end_s (a satellite that fades, or rises late).'''
    fs = sample_rate_hz
    total = int(round(duration_s * fs))
    step = int(round(block_s * fs))
    with open(path, 'wb') as f:
        for start in range(0, total, step):
            n = min(step, total - start)
            if not absences:
                case.signal().generate_ci16(n, CI16_SCALE).tofile(f)
                continue
            samples = case.signal().generate(n)
            index = numpy.arange(start, start + n)
            for alone, start_s, end_s in absences:
                absent = (index >= start_s * fs) & (index < end_s * fs)
                if start < end_s * fs:  # its signal made in step while needed
                    samples[absent] -= alone.signal().generate(n)[absent]
            # As generate_ci16: scaled, rounded to nearest and saturated.
            values = numpy.empty(2 * n, dtype=numpy.float64)
            values[0::2], values[1::2] = samples.real, samples.imag
            numpy.clip(numpy.rint(values * CI16_SCALE), -32768, 32767).astype(
                numpy.int16).tofile(f)


def position_errors(ecef_m):
    '''(horizontal, 3-D) distance in metres of an ECEF position from the truth.'''
    truth = receiver_ecef()
    d = numpy.asarray(ecef_m, dtype=float) - truth
    lat, lon = numpy.radians(RECEIVER_GEODETIC[:2])
    up = numpy.array([numpy.cos(lat) * numpy.cos(lon), numpy.cos(lat) * numpy.sin(lon),
                      numpy.sin(lat)])
    three_d = float(numpy.linalg.norm(d))
    return float(numpy.sqrt(max(three_d ** 2 - float(d @ up) ** 2, 0.0))), three_d
