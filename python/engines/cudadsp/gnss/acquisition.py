#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""acquire: which GNSS satellites a recording holds, with their Doppler and code phase
(the engine of pcps_acquisition_cc, docs/blocks/pcps_acquisition_cc.md), on the CPU or
a CUDA device."""

import functools

import numpy

from .._engines import pcps_acquisition


# Engines keep replica spectra and FFT plans (on the GPU for CUDA): a few are kept.
@functools.lru_cache(maxsize=4)
def _engine(settings):
    return pcps_acquisition(**dict(settings))


def acquire(samples, sample_rate_hz, satellites=None, first_sample=0, **settings):
    """Search satellites in the first samples of a recording.

    Args:
        samples: complex baseband samples (converted to complex64); the search takes
            noncoherent_dwells x coherent_periods code periods of them from the start.
        sample_rate_hz: their rate.
        satellites: PRNs (GPS 1..32, Galileo 1..50) or GLONASS frequency numbers
            (-7..6); default every one of the signal the sample rate holds.
        first_sample: the absolute index of samples[0] (the detections' start_sample).
        settings: by keyword, the block's parameters: signal ("gps_l1ca", "galileo_e1",
            "glonass_l1of"), intermediate_frequency_hz, doppler_center_hz,
            doppler_max_hz (10e3), doppler_step_hz (500), coherent_periods (1),
            noncoherent_dwells (10), false_alarm (1e-3, per satellite's grid),
            galileo_pilot, device ("auto", "cpu", "cuda", "cuda:N").

    Returns:
        A list of dicts, one per satellite searched, in order: satellite, detected,
        doppler_hz, code_phase_chips (at first_sample), delay_samples, code_rate_cps,
        start_sample, metric, threshold, second_peak_ratio, cn0_dbhz,
        secondary_code_phase. A detected one's fields start a correlator channel as
        they are.

    Raises:
        ValueError: too few samples, a satellite the signal or the sample rate does not
            hold, or a setting out of range (each named). TypeError: an unknown setting.
    """
    settings["sample_rate_hz"] = float(sample_rate_hz)
    engine = _engine(tuple(sorted(settings.items())))
    return engine.search(numpy.asarray(samples),
                         None if satellites is None else [int(s) for s in satellites],
                         first_sample)
