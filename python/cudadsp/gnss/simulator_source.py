#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""GNSS Simulator Source: simulated satellites in noise as a GNU Radio stream."""

import json

import numpy as np
from gnuradio import gr

from cudadsp.gnss import (boc11_expand, galileo_e1_chip_rate_cps, galileo_e1_code,
                          glonass_l1of_chip_rate_cps, glonass_l1of_code, gnss_signal_simulator,
                          gnss_simulated_satellite, gnss_simulator_config, gps_l1_frequency_hz,
                          gps_l1ca_code)
from ..common.work_errors import stop_on_error

_KEYS = {"system", "prn", "frequency_number", "code_phase_chips", "doppler_hz",
         "doppler_rate_hz_per_s", "carrier_phase_rad", "cn0_dbhz"}


def simulated_satellite(description):
    """A gnss_simulated_satellite from a dict: system ("gps_l1ca" default,
    "galileo_e1" for E1 B+C with BOC(1,1), "glonass_l1of" with frequency_number), prn,
    code_phase_chips, doppler_hz, doppler_rate_hz_per_s, carrier_phase_rad, cn0_dbhz.
    ValueError naming an unknown key or system."""
    d = dict(description)
    unknown = set(d) - _KEYS
    if unknown:
        raise ValueError("satellites: unknown key(s) %s (keys: %s)"
                         % (sorted(unknown), sorted(_KEYS)))
    system = d.get("system", "gps_l1ca")
    s = gnss_simulated_satellite()
    if system == "gps_l1ca":
        s.code = gps_l1ca_code(int(d["prn"]))
        s.code_periods_per_bit = 20
    elif system == "galileo_e1":
        s.code = boc11_expand(galileo_e1_code(int(d["prn"]), "b"))
        s.pilot_code = boc11_expand(galileo_e1_code(int(d["prn"]), "c"))
        s.code_entries_per_chip = 2
        s.chip_rate_cps = galileo_e1_chip_rate_cps
        s.code_periods_per_bit = 1
    elif system == "glonass_l1of":
        s.code = glonass_l1of_code()
        s.chip_rate_cps = glonass_l1of_chip_rate_cps
        s.carrier_frequency_hz = 1602e6 + 562.5e3 * int(d.get("frequency_number", 0))
        s.code_periods_per_bit = 10
    else:
        raise ValueError('satellites: system must be "gps_l1ca", "galileo_e1" or '
                         '"glonass_l1of", got %r' % (system,))
    if system != "glonass_l1of":
        s.carrier_frequency_hz = gps_l1_frequency_hz
    s.code_phase_chips = float(d.get("code_phase_chips", 0.0))
    s.doppler_hz = float(d.get("doppler_hz", 0.0))
    s.doppler_rate_hz_per_s = float(d.get("doppler_rate_hz_per_s", 0.0))
    s.carrier_phase_rad = float(d.get("carrier_phase_rad", 0.0))
    s.cn0_dbhz = float(d.get("cn0_dbhz", 45.0))
    return s


def make_simulator(sample_rate_hz, satellites, noise_power=1.0, seed=1,
                   intermediate_frequency_hz=0.0):
    """A gnss_signal_simulator from satellite dicts (see simulated_satellite())."""
    config = gnss_simulator_config()
    config.sample_rate_hz = float(sample_rate_hz)
    config.noise_power = float(noise_power)
    config.seed = int(seed)
    config.intermediate_frequency_hz = float(intermediate_frequency_hz)
    return gnss_signal_simulator(config, [simulated_satellite(s) for s in satellites])


def simulator_from_file(path):
    """The simulator a gnss_simulator_source described in its truth_file: same
    satellites, noise and seed, so its truth functions give the truth of that run."""
    with open(path) as f:
        d = json.load(f)
    return make_simulator(d["sample_rate_hz"], d["satellites"], d["noise_power"], d["seed"],
                          d.get("intermediate_frequency_hz", 0.0)), d


class gnss_simulator_source(gr.sync_block):
    """GNSS Simulator Source (CUDA DSP): GNSS satellites plus complex white Gaussian
    noise (the gnss_signal_simulator engine), complex float.

    satellites: list of dicts (simulated_satellite()). C/N0 holds against the noise
    whatever noise_power is. nsamples: samples to produce, then the end of the
    flowgraph (0: until stopped). truth_file: when not empty, the simulator's settings
    are written there as JSON at construction (simulator_from_file() rebuilds it and
    its truth: code phase, Doppler, carrier phase at any sample).
    """

    def __init__(self, sample_rate_hz=4e6, satellites=(), noise_power=1.0, seed=1,
                 nsamples=0, intermediate_frequency_hz=0.0, truth_file=""):
        if int(nsamples) < 0:
            raise ValueError("nsamples: must be >= 0 (0: until stopped), got %r" % (nsamples,))
        self._sim = make_simulator(sample_rate_hz, satellites, noise_power, seed,
                                   intermediate_frequency_hz)
        gr.sync_block.__init__(self, name="gnss_simulator_source", in_sig=None,
                               out_sig=[np.complex64])
        self._nsamples = int(nsamples)
        if truth_file:
            with open(truth_file, "w") as f:
                json.dump({"sample_rate_hz": float(sample_rate_hz),
                           "satellites": [dict(s) for s in satellites],
                           "noise_power": float(noise_power), "seed": int(seed),
                           "intermediate_frequency_hz": float(intermediate_frequency_hz)},
                          f, indent=1)

    def simulator(self):
        """The underlying gnss_signal_simulator (its truth functions)."""
        return self._sim

    @stop_on_error
    def work(self, input_items, output_items):
        out = output_items[0]
        n = len(out)
        if self._nsamples:
            left = self._nsamples - self._sim.position()
            if left <= 0:
                return -1
            n = min(n, left)
        out[:n] = self._sim.generate(n)
        return n


# Reachable from the class too, which the package exports under the module's name.
gnss_simulator_source.simulated_satellite = staticmethod(simulated_satellite)
gnss_simulator_source.make_simulator = staticmethod(make_simulator)
gnss_simulator_source.simulator_from_file = staticmethod(simulator_from_file)
