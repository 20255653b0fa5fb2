#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
'''
One GMTSAR pair through the cudadsp_xcorr program, for the stack driver (stack_dask):
the program runs in a fresh folder inside the pair's output folder, and its
freq_xcorr.dat and log replace the output folder's (one output_set) only once the
program has exited successfully, so a pair whose run failed or was killed leaves the
folder's earlier freq_xcorr.dat, if any, as it was, never one of its own.

GMTSAR opens a PRM file's SLC_file relative to the working directory. The program runs
elsewhere here, so it is given copies of the two PRM files whose SLC_file is made
absolute against the folder the stack was started in (the folder a single-process run,
cudadsp_xcorr in that folder, would resolve it against); every other line is copied as
it is, and the output is the one such a run writes.
'''

import ctypes
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass

from ..common.output_set import output_set
from .raster_io import open_regular, raster_error, write_atomically

OUTPUT_NAME = 'freq_xcorr.dat'
LOG_NAME = 'cudadsp_xcorr.log'
FAILED_LOG_NAME = 'cudadsp_xcorr.failed.log'
# The driver sets -device itself (one worker per GPU); -v gives the device line below.
RESERVED_OPTIONS = ('-device', '-v')
_ENGINE_LINE = re.compile(r'^cudadsp_xcorr: engine on (\S+)', re.MULTILINE)
_SLC_FILE_LINE = re.compile(r'^(\s*SLC_file\s*=\s*)(\S+)(.*)$')
_PR_SET_PDEATHSIG = 1


@dataclass
class xcorr_result:
    status: str     # 'ok' or 'failed'
    message: str
    device: str     # the engine's device as the program reports it; '' when unknown
    output: str     # freq_xcorr.dat, or '' when failed


def check_xcorr_options(options):
    '''Options the driver passes itself may not be given twice.'''
    for option in options:
        if option in RESERVED_OPTIONS:
            raise ValueError(f'--xcorr-options: {option} is set by the stack driver '
                             f'(--device chooses the device)')


def _die_with_parent():
    # The program would otherwise outlive a killed worker and keep its GPU busy while
    # the restarted worker takes the next pair.
    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def _copy_prm(source, destination, slc_base):
    # A regular file only: a FIFO would hold the worker in open() for ever.
    with open_regular(source, 'PRM') as f:
        lines = f.read().decode('latin-1').splitlines(keepends=True)
    for i, line in enumerate(lines):
        match = _SLC_FILE_LINE.match(line.rstrip('\r\n'))
        if match and not os.path.isabs(match.group(2)):
            ending = line[len(line.rstrip('\r\n')):]
            lines[i] = (match.group(1) + os.path.join(slc_base, match.group(2)) +
                        match.group(3) + ending)
    write_atomically(destination, lambda f: f.write(''.join(lines).encode('latin-1')))


def _last_error(stderr, copies):
    lines = [line for line in stderr.splitlines() if line.strip()]
    errors = [line for line in lines if 'error' in line]
    message = (errors or lines or ['no message'])[-1]
    message = message.removeprefix('cudadsp_xcorr: ')
    for copy, original in copies.items():
        message = message.replace(copy, original)
    return message


def run_xcorr_pair(program, master_prm, aligned_prm, output, options, device, slc_base):
    '''
    Runs \\p program (cudadsp_xcorr) on the pair with \\p options (a list) and
    -device \\p device. Success: OUTPUT/cudadsp_xcorr.log (the program's messages) and
    OUTPUT/freq_xcorr.dat, one output_set, replace the earlier ones. A failure (bad PRM,
    missing SLC, the program's exit status) is returned, not raised; it leaves the
    earlier pair of files as they were and the program's messages in
    OUTPUT/cudadsp_xcorr.failed.log.
    '''
    try:
        os.makedirs(output, exist_ok=True)
        work = tempfile.mkdtemp(prefix='.cudadsp_stack-', dir=output)
    except OSError as error:
        return xcorr_result('failed', f'output folder {output}: {error.strerror}', '', '')
    try:
        copies = {}
        for role, prm in (('master', master_prm), ('aligned', aligned_prm)):
            copy = os.path.join(work, f'{role}.PRM')
            try:
                _copy_prm(prm, copy, slc_base)
            except OSError as error:
                return xcorr_result('failed', f'{prm}: {error.strerror}', '', '')
            except raster_error as error:
                return xcorr_result('failed', str(error), '', '')
            copies[copy] = prm
        command = [program, *copies, *options, '-device', device, '-v']
        started = time.monotonic()
        try:
            completed = subprocess.run(command, cwd=work, capture_output=True, text=True,
                                       errors='replace', preexec_fn=_die_with_parent)
        except OSError as error:
            return xcorr_result('failed', f'{program}: {error.strerror}', '', '')
        engine = _ENGINE_LINE.search(completed.stderr)
        engine_device = engine.group(1) if engine else ''
        log = (f'$ {" ".join(command)}\n(in {work}, {time.monotonic() - started:.3f} s, '
               f'exit status {completed.returncode})\n{completed.stderr}')
        if completed.returncode != 0:
            write_atomically(os.path.join(output, FAILED_LOG_NAME),
                             lambda f: f.write(log.encode()))
            return xcorr_result('failed', _last_error(completed.stderr, copies)
                                if completed.returncode > 0 else
                                f'{os.path.basename(program)} killed by signal '
                                f'{-completed.returncode}', engine_device, '')
        with output_set(output, [LOG_NAME, OUTPUT_NAME, FAILED_LOG_NAME]) as files:
            files.write(LOG_NAME, lambda f: f.write(log.encode()))
            os.replace(os.path.join(work, OUTPUT_NAME), files.temporary(OUTPUT_NAME))
        return xcorr_result('ok', '', engine_device, files.final_path(OUTPUT_NAME))
    finally:
        shutil.rmtree(work, ignore_errors=True)
