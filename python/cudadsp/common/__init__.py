#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
'''What every Python block of gnuradio.cudadsp shares: stop_on_error (a block whose
work() raises ends its flowgraph, as the C++ blocks do) and rate_limited_log (one log
line per interval for a repeated complaint), with the engines' common helpers
(cudadsp.common: output sets, the data folder).'''

from cudadsp.common import *

from .rate_limited_log import rate_limited_log
from .work_errors import stop_on_error
