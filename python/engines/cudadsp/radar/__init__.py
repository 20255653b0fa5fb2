#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
'''Weather radar without GNU Radio: weather_echo, the dual-polarisation echo model of
the synthetic storm (storm_scene_source in gnuradio.cudadsp streams it). The
polarimetric moments and KDP run as blocks of gnuradio.cudadsp.'''
