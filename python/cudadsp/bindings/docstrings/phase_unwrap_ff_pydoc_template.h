/*
 * Copyright 2026 Free Software Foundation, Inc.
 *
 * This file is part of GNU Radio
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 */
#include "pydoc_macros.h"
#define D(...) DOC(gr, cudadsp, __VA_ARGS__)
/*
  This file contains placeholders for docstrings for the Python bindings.
  Do not edit! These were automatically extracted during the binding process
  and will be overwritten during the build process
 */



 static const char *__doc_gr_cudadsp_phase_unwrap_ff = R"doc()doc";


 static const char *__doc_gr_cudadsp_phase_unwrap_ff_phase_unwrap_ff = R"doc()doc";


 static const char *__doc_gr_cudadsp_phase_unwrap_ff_make = R"doc()doc";

  
