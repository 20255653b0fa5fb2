/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// cudadsp._engines: the engines of gnuradio-cudadsp-core for Python, with NumPy and
// nothing of GNU Radio (the package python/engines/cudadsp wraps it). The block
// bindings (gnuradio.cudadsp.cudadsp_python) are a separate extension over the block
// library; they bind no engine type, so the two never register one twice.

#include <pybind11/pybind11.h>

namespace py = pybind11;

void bind_dense_offsets(py::module& m);
void bind_gnss_codes(py::module& m);
void bind_gnss_signal_simulator(py::module& m);
void bind_gnss_navigation_data(py::module& m);
void bind_gnss_outputs(py::module& m);
void bind_gps_receiver(py::module& m);
void bind_interferogram_simulator(py::module& m);
void bind_kdp(py::module& m);
void bind_multichannel_correlator(py::module& m);
void bind_patch_correlator(py::module& m);
void bind_pcps_acquisition(py::module& m);
void bind_phase_unwrapper(py::module& m);
void bind_polarimetric(py::module& m);
void bind_st_tbd(py::module& m);
void bind_phase_unwrapper_2d(py::module& m);
void bind_device(py::module& m);
void bind_cross_correlator(py::module& m);

PYBIND11_MODULE(_engines, m)
{
    m.doc() = "The engines of gr-cudadsp (gnuradio-cudadsp-core), without GNU Radio.";
    bind_device(m);
    bind_cross_correlator(m);
    bind_dense_offsets(m);
    bind_gnss_codes(m);
    bind_gnss_signal_simulator(m);
    bind_gnss_navigation_data(m);
    bind_gps_receiver(m);
    bind_gnss_outputs(m);
    bind_interferogram_simulator(m);
    bind_kdp(m);
    bind_multichannel_correlator(m);
    bind_patch_correlator(m);
    bind_pcps_acquisition(m);
    bind_phase_unwrapper(m);
    bind_polarimetric(m);
    bind_st_tbd(m);
    bind_phase_unwrapper_2d(m);
}
