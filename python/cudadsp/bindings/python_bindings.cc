/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 */

#include <pybind11/pybind11.h>

#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

namespace py = pybind11;

// Headers for binding functions
/**************************************/
// The following comment block is used for
// gr_modtool to insert function prototypes
// Please do not delete
/**************************************/
// BINDING_FUNCTION_PROTOTYPES(
    void bind_cross_correlator_cc(py::module& m);
    void bind_gnss_observables(py::module& m);
    void bind_gnss_pvt(py::module& m);
    void bind_gps_telemetry_decoder(py::module& m);
    void bind_kdp_ff(py::module& m);
    void bind_multichannel_correlator_cc(py::module& m);
    void bind_patch_xcorr_cc(py::module& m);
    void bind_pcps_acquisition_cc(py::module& m);
    void bind_phase_unwrap_2d_ff(py::module& m);
    void bind_phase_unwrap_ff(py::module& m);
    void bind_polarimetric_products_cf(py::module& m);
    void bind_st_tbd_ff(py::module& m);
// ) END BINDING_FUNCTION_PROTOTYPES


// We need this hack because import_array() returns NULL
// for newer Python versions.
// This function is also necessary because it ensures access to the C API
// and removes a warning.
void* init_numpy()
{
    import_array();
    return NULL;
}

PYBIND11_MODULE(cudadsp_python, m)
{
    // Initialize the numpy C API
    // (otherwise we will see segmentation faults)
    init_numpy();

    // Allow access to base block methods
    py::module::import("gnuradio.gr");
    // The engines' extension (cudadsp._engines) binds the engine types; the blocks'
    // bindings bind none of them.

    /**************************************/
    // The following comment block is used for
    // gr_modtool to insert binding function calls
    // Please do not delete
    /**************************************/
    // BINDING_FUNCTION_CALLS(
    bind_cross_correlator_cc(m);
    bind_gnss_observables(m);
    bind_gnss_pvt(m);
    bind_gps_telemetry_decoder(m);
    bind_kdp_ff(m);
    bind_multichannel_correlator_cc(m);
    bind_patch_xcorr_cc(m);
    bind_pcps_acquisition_cc(m);
    bind_phase_unwrap_2d_ff(m);
    bind_phase_unwrap_ff(m);
    bind_polarimetric_products_cf(m);
    bind_st_tbd_ff(m);
    // ) END BINDING_FUNCTION_CALLS
}