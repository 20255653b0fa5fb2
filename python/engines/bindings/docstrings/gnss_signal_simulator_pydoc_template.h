/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "pydoc_macros.h"
#define D(...) DOC(gr, cudadsp, __VA_ARGS__)
/*
  Docstrings for the Python bindings of the GNSS signal simulator (written by hand; used
  as the docstring header when Doxygen is not run).
 */


static const char* __doc_gr_cudadsp_core_gnss_simulated_satellite = R"doc(One simulated satellite signal.

At time t = n / sample_rate (n the absolute sample index):
    Doppler    f_d(t)   = doppler_hz + doppler_rate_hz_per_s t
    carrier    theta(t) = carrier_phase_rad + 2 pi (IF t + doppler_hz t + rate t^2 / 2)
    code phase chi(t)   = code_phase_chips + chip_rate_cps (t + (doppler_hz t +
                          rate t^2 / 2) / carrier_frequency_hz)
and the sample is A d(b) code[floor(chi * entries_per_chip) mod L] exp(j theta), or with
a pilot table A (d(b) code - pilot_code) / sqrt(2) exp(j theta) (Galileo E1 B+C), A set
by cn0_dbhz against the noise power.

Attributes: code, pilot_code (int8 tables, +1 / -1), code_entries_per_chip,
chip_rate_cps, carrier_frequency_hz (nominal RF), code_phase_chips, doppler_hz,
doppler_rate_hz_per_s, carrier_phase_rad, cn0_dbhz, code_periods_per_bit (20 for GPS
L1 C/A, 0 for no data), bits (+1 / -1, repeated; empty: random from the seed).)doc";


static const char* __doc_gr_cudadsp_core_gnss_simulator_config = R"doc(Simulator settings: sample_rate_hz, intermediate_frequency_hz, noise_power (complex noise power per sample), seed (noise and random bits; splitmix64, the same samples on every platform).)doc";


static const char* __doc_gr_cudadsp_core_gnss_signal_simulator = R"doc(Several GNSS satellites plus complex white Gaussian noise, with their truth. generate() continues where the previous call stopped; the truth functions take any absolute sample index (a number or a NumPy array of them).)doc";


static const char* __doc_gr_cudadsp_core_gnss_signal_simulator_gnss_signal_simulator = R"doc(Make a simulator from a gnss_simulator_config and a list of gnss_simulated_satellite. ValueError naming the field (e.g. "satellites[2].code").)doc";


static const char* __doc_gr_cudadsp_core_gnss_signal_simulator_generate = R"doc(The next n samples as a NumPy complex64 array.)doc";


static const char* __doc_gr_cudadsp_core_gnss_signal_simulator_generate_ci16 = R"doc(The next n samples as interleaved int16 I/Q (2 n values): round(scale * x), saturated.)doc";


static const char* __doc_gr_cudadsp_core_gnss_signal_simulator_generate_ci8 = R"doc(The next n samples as interleaved int8 I/Q (2 n values): round(scale * x), saturated.)doc";


static const char* __doc_gr_cudadsp_core_gnss_signal_simulator_position = R"doc(Absolute index of the next sample generate() makes.)doc";


static const char* __doc_gr_cudadsp_core_gnss_signal_simulator_satellite_count = R"doc(Number of satellites.)doc";


static const char* __doc_gr_cudadsp_core_gnss_signal_simulator_code_phase_total_chips = R"doc(Unwrapped code phase chi (chips) of satellite sat at (fractional) sample n.)doc";


static const char* __doc_gr_cudadsp_core_gnss_signal_simulator_code_phase_chips = R"doc(Code phase within the code period, [0, chips), of satellite sat at sample n: the value a channel's code_phase_chips takes to follow it from start_sample n.)doc";


static const char* __doc_gr_cudadsp_core_gnss_signal_simulator_code_rate_cps = R"doc(Code rate (chips/s) of satellite sat at sample n.)doc";


static const char* __doc_gr_cudadsp_core_gnss_signal_simulator_doppler_hz = R"doc(Doppler (Hz) of satellite sat at sample n.)doc";


static const char* __doc_gr_cudadsp_core_gnss_signal_simulator_carrier_phase_rad = R"doc(Unwrapped carrier phase theta (rad, IF included) of satellite sat at sample n.)doc";


static const char* __doc_gr_cudadsp_core_gnss_signal_simulator_bit_index = R"doc(Data bit index b at sample n.)doc";


static const char* __doc_gr_cudadsp_core_gnss_signal_simulator_bit = R"doc(Data bit value d(b) (+1 or -1; 1 without data) of bit index.)doc";


static const char* __doc_gr_cudadsp_core_gnss_signal_simulator_amplitude = R"doc(Signal amplitude A of satellite sat.)doc";
