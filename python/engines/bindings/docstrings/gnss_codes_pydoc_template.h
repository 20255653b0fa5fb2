/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "pydoc_macros.h"
#define D(...) DOC(gr, cudadsp, __VA_ARGS__)
/*
  Docstrings for the Python bindings of the GNSS spreading codes (written by hand; used
  as the docstring header when Doxygen is not run).
 */


static const char* __doc_gr_cudadsp_core_galileo_e1_component = R"doc(Galileo E1 OS component: b (E1-B, data channel) or c (E1-C, pilot channel).)doc";


static const char* __doc_gr_cudadsp_core_gps_l1ca_code = R"doc(GPS L1 C/A code of PRN prn (1 to 32): 1023 chips as a NumPy int8 array, +1 / -1 (logic 0 -> +1), IS-GPS-200 G1 xor G2i. ValueError outside 1 to 32.)doc";


static const char* __doc_gr_cudadsp_core_glonass_l1of_code = R"doc(GLONASS L1 open-service ranging code, 511 chips (int8, +1 / -1), the same for every satellite.)doc";


static const char* __doc_gr_cudadsp_core_galileo_e1_code = R"doc(Galileo E1 primary code of PRN prn (1 to 50), 4092 chips (int8, +1 / -1), from the OS SIS ICD's table (Annex C) that the library carries: no file is read.

Args:
    prn: 1 to 50.
    component: "b" (E1-B, data) or "c" (E1-C, pilot), or galileo_e1_component.

Raises:
    ValueError: prn out of range or a bad component.)doc";


static const char* __doc_gr_cudadsp_core_boc11_expand = R"doc(BOC(1,1) table from chips: each chip c becomes [c, -c] (sine-phased sub-carrier, +1 in the first half of every chip); use it with code_entries_per_chip = 2.)doc";
