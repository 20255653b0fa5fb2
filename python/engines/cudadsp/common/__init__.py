#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
'''Helpers every field uses: output_set (a run's outputs complete under their final
names, or none of them) and data_files (where the data folder is).'''
