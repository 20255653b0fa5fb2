#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""What a Python block of this module does when its work() raises: the Python side of
lib/blocks/common/work_errors.h.

GNU Radio 3.10 reports an exception from a Python block's work() or general_work()
("ERROR thread[...]" and a traceback) and ends the block's thread without marking the
block done: its neighbours wait for it and top_block.run() never returns (with one
input as with nine). Every Python block of the module therefore wraps its work() in
stop_on_error: the error is logged through the block's logger, naming the block (its
alias), and work() returns WORK_DONE, so that the scheduler ends the block as at the
end of a stream, downstream blocks drain and end, upstream blocks end once nothing
reads them, and run() returns.
"""

import functools

#: gr.block's WORK_DONE (not exported by the Python API).
WORK_DONE = -1


def stop_on_error(work):
    """Decorator of a block's work() or general_work(): an exception from it is logged
    as "<alias>: stopped by an error in work(): <error>" and ends the block."""

    @functools.wraps(work)
    def guarded(self, input_items, output_items):
        try:
            return work(self, input_items, output_items)
        except Exception as e:  # every error ends the block; none may leave work()
            self.logger.error("%s: stopped by an error in work(): %s: %s"
                              % (self.alias(), type(e).__name__, e))
            return WORK_DONE

    guarded.stops_on_error = True
    return guarded
