#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""track: the satellites an acquisition found, followed through a recording by the
multichannel correlator's loops (the engine of multichannel_correlator_cc,
docs/blocks/multichannel_correlator_cc.md), on the CPU or a CUDA device."""

import numpy

from .._engines import gnss_receiver_tap_offsets, multichannel_correlator

# The channel description of a detection, by the acquisition's signal name.
_SYSTEMS = {"gps_l1ca": "gps_l1ca", "galileo_e1": "galileo_e1b",
            "glonass_l1of": "glonass_l1of"}


def _description(detection, signal, galileo_pilot):
    description = {"doppler_hz": float(detection["doppler_hz"]),
                   "code_phase_chips": float(detection["code_phase_chips"]),
                   "start_sample": int(detection["start_sample"])}
    if signal == "glonass_l1of":
        description["system"] = "glonass_l1of"
        description["frequency_number"] = int(detection["satellite"])
    else:
        description["system"] = "galileo_e1c" if galileo_pilot else _SYSTEMS[signal]
        description["prn"] = int(detection["satellite"])
    return description


def track(samples, sample_rate_hz, detections, signal="gps_l1ca", first_sample=0,
          call_samples=None, tap_offsets_chips=None, galileo_pilot=False,
          intermediate_frequency_hz=0.0, device="auto", **channel_settings):
    """Track the detected satellites of an acquisition through a recording.

    Args:
        samples: complex baseband samples (converted to complex64), in time order.
        sample_rate_hz: their rate.
        detections: what cudadsp.gnss.acquire() returned (the detected ones are
            tracked; each starts at its own start_sample, code phase and Doppler).
        signal: the acquisition's signal, "gps_l1ca", "galileo_e1" or "glonass_l1of".
        first_sample: the absolute index of samples[0] (as given to acquire()).
        call_samples: samples per engine call (default 10 ms of them), as a stream
            would deliver them; the results do not depend on it.
        tap_offsets_chips: the taps (default: the signal's receiver taps,
            gnss_receiver_tap_offsets(signal)).
        galileo_pilot: track Galileo's E1-C (pilot) code instead of E1-B.
        intermediate_frequency_hz, device: as multichannel_correlator takes them.
        channel_settings: loop settings every channel takes, by the channel keys of
            docs/blocks/multichannel_correlator_cc.md (pll_bandwidth_hz,
            dll_bandwidth_hz, fll_bandwidth_hz, pll_order, cn0_epochs, ...).

    Returns:
        A list of dicts, one per tracked satellite in the order of detections:
        satellite, and per completed epoch NumPy arrays start_sample, code_phase_chips,
        code_rate_cps, doppler_hz, carrier_cycles, cn0_dbhz, carrier_lock, flags,
        prompt_sign and correlations (epochs x taps, complex64, in tap_offsets_chips'
        order), plus tap_offsets_chips and backend.

    Raises:
        ValueError or TypeError naming the argument or channel key at fault.
    """
    taps = list(gnss_receiver_tap_offsets(signal) if tap_offsets_chips is None
                else tap_offsets_chips)
    samples = numpy.asarray(samples)
    if samples.ndim != 1 or len(samples) == 0:
        raise ValueError("samples: must be a non-empty 1-D array, got shape %r"
                         % (samples.shape,))
    tracked = [d for d in detections if d["detected"]]
    correlator = multichannel_correlator(
        sample_rate_hz, tap_offsets_chips=taps, max_channels=max(1, len(tracked)),
        intermediate_frequency_hz=intermediate_frequency_hz, device=device)
    for channel_id, detection in enumerate(tracked):
        description = _description(detection, signal, galileo_pilot)
        description["start_sample"] -= int(first_sample)
        if description["start_sample"] < 0:
            raise ValueError("detections[%d].start_sample: before first_sample" % channel_id)
        correlator.add_channel(description, id=channel_id, **channel_settings)

    step = (max(1, int(round(0.010 * sample_rate_hz))) if call_samples is None
            else int(call_samples))
    if step < 1:
        raise ValueError("call_samples: must be >= 1, got %r" % (call_samples,))
    parts = [correlator.process(samples[i:i + step]) for i in range(0, len(samples), step)]
    records = numpy.concatenate([p[0] for p in parts])
    correlations = numpy.concatenate([p[3] for p in parts])

    results = []
    for channel_id, detection in enumerate(tracked):
        mine = records["channel_id"] == channel_id
        epoch = records[mine]
        result = {"satellite": detection["satellite"],
                  "tap_offsets_chips": taps,
                  "backend": correlator.backend(),
                  "correlations": correlations[mine]}
        for field in ("start_sample", "code_phase_chips", "code_rate_cps", "doppler_hz",
                      "carrier_cycles", "cn0_dbhz", "carrier_lock", "flags",
                      "prompt_sign"):
            result[field] = epoch[field] + (int(first_sample) if field == "start_sample"
                                            else 0)
        results.append(result)
    return results
