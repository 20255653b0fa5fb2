#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
'''GNSS blocks: the multichannel correlator (multichannel_correlator_cc, _sc, _bc) and
continuous acquisition (pcps_acquisition_cc, _sc) with their channel messages
(gnss_channels_pmt) and record layout (gnss_state_field); gnss_receiver_frontend (the
two wired together); gps_telemetry_decoder, gnss_observables and gnss_pvt (records to
fixes) and gnss_receiver (all of them: a stream to fixes); gnss_records and
gnss_record_sink (records as NumPy structured arrays), gnss_channel_monitor (per-satellite vectors for a QT GUI),
gnss_simulator_source (simulated satellites as a stream) and search_grid (the
correlator as an acquisition grid); with the engines' GNSS API (cudadsp.gnss: acquire,
track, the codes, the simulator).'''

from cudadsp.gnss import *

from ..cudadsp_python import (gnss_channels_pmt, gnss_observables, gnss_pvt,
                              gnss_state_field, gnss_state_field_count,
                              gps_telemetry_decoder, multichannel_correlator_base,
                              multichannel_correlator_bc, multichannel_correlator_cc,
                              multichannel_correlator_sc, pcps_acquisition_base,
                              pcps_acquisition_cc, pcps_acquisition_sc)
from .channel_monitor import gnss_channel_monitor
from .receiver import gnss_receiver
from .receiver_frontend import gnss_receiver_frontend
from .records import gnss_record_sink, gnss_records
from .simulator_source import gnss_simulator_source
from . import search_grid
