#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
'''
Stacks of InSAR pairs across GPUs and machines on Dask's distributed scheduler
(Debian's python3-distributed): the driver behind the cudadsp_stack tool.

Every pair is one task. A worker runs one pair at a time and is pinned to one GPU by
CUDA_VISIBLE_DEVICES, set in its environment before its process starts (so before CUDA
initialises there); a worker keeps its dense-offset engines between pairs (one per
configuration, in the worker process), so a stack pays for the CUDA context and the FFT
plans once a worker. The driver hands the scheduler no more pairs than there are
workers: a worker never holds a second pair while it runs one, so a worker that dies
fails only the pair it was running. The scheduler is told to give such a pair up at
once (allowed-failures 0) rather than try it on other workers.

Results come back as pairs complete, with a progress line each on stderr, and end in a
summary table (Markdown and CSV). docs/apps/cudadsp_stack.md is the user's guide.
'''

import argparse
import csv
import dataclasses
import io
import logging
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import threading
import time
import uuid

from ..common import documentation, output_set
from . import offset_stack, xcorr_pair
from .dense_offsets import dense_offsets_engine

WORKER_DIED = 'worker died'
# The default of --worker-wait: how long the driver waits without a worker (seconds).
WORKER_WAIT_S = 120
# The messages of a "not run" row while the stack runs.
NOT_REACHED = 'not reached'
RUNNING = 'running on a worker'
_CUDA_LINE = re.compile(r'^cuda:\d+\s', re.MULTILINE)
_NVIDIA_SMI_LINE = re.compile(r'^GPU \d+:', re.MULTILINE)


@dataclasses.dataclass
class stack_report:
    '''One pair's row of the summary table.'''
    pair: str
    status: str      # 'ok', 'failed' or 'not run'
    worker: str
    device: str
    seconds: float
    message: str


@dataclasses.dataclass
class stack_settings:
    '''What every task needs besides its pair; sent with each task.'''
    kind: str                # 'xcorr' or 'offsets'
    device: str              # what the pair runs on: 'cpu', 'cuda' or 'auto'
    xcorr_program: str = ''
    xcorr_options: tuple = ()
    slc_base: str = ''       # where a relative SLC_file is found: the driver's folder
    offsets_options: offset_stack.offsets_options = None


# One engine cache a worker process, kept between its tasks; and one pair at a time in
# it, should a worker have been started with several threads.
_engine_cache = None
_pair_lock = threading.Lock()
# The pair runner's own messages stay in the worker: the driver reports each pair.
_quiet = logging.getLogger('cudadsp_stack.pair')
_quiet.addHandler(logging.NullHandler())
_quiet.propagate = False


def _worker_names():
    '''(worker, pinned GPU) of the worker running this task.'''
    from distributed import get_worker
    worker = get_worker()
    name = str(worker.name)
    if name == worker.address:
        name = f'{socket.gethostname()}/{worker.address}'
    return name, os.environ.get('CUDA_VISIBLE_DEVICES')


def _device_name(engine_device, pinned):
    if engine_device.startswith('cuda') and pinned:
        return f'{engine_device} (CUDA_VISIBLE_DEVICES={pinned})'
    return engine_device


def run_pair_task(pair, settings):
    '''The task: one pair on the worker that runs it. Never raises for the pair's own
    failure; returns its stack_report.'''
    global _engine_cache
    worker, pinned = _worker_names()
    with _pair_lock:
        started = time.monotonic()
        if settings.kind == 'xcorr':
            result = xcorr_pair.run_xcorr_pair(
                settings.xcorr_program, pair.reference, pair.secondary, pair.output,
                list(settings.xcorr_options), settings.device, settings.slc_base)
            status, message, device = result.status, result.message, result.device
        else:
            if _engine_cache is None:
                _engine_cache = offset_stack.engine_cache()
            options = settings.offsets_options
            report = offset_stack.run_pair(pair, options, _engine_cache, log=_quiet)
            status, message = report.status, report.message
            device = ''
            if status == 'ok':
                device = _engine_cache.get(options.engine_configuration()).backend()
        return stack_report(pair.name, status, worker, _device_name(device, pinned),
                            time.monotonic() - started, message)


def find_program(name, tool_path):
    '''\\p name next to the tool (installed together), else on PATH, else in the build
    tree of a source checkout (apps/../build/apps); None when nowhere.'''
    here = os.path.dirname(os.path.abspath(tool_path))
    for candidate in (os.path.join(here, name), shutil.which(name),
                      os.path.join(here, os.pardir, 'build', 'apps', name)):
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return os.path.abspath(candidate)
    return None


def find_gpus(info_program, log):
    '''
    CUDA_VISIBLE_DEVICES values for this host's usable GPUs, one a worker. Counts them
    with cudadsp_info (what the engines see) or else nvidia-smi; where the driver runs
    with CUDA_VISIBLE_DEVICES already set, the workers share out those GPUs.
    '''
    count = 0
    if info_program:
        listing = subprocess.run([info_program], capture_output=True, text=True).stdout
        count = len(_CUDA_LINE.findall(listing))
    elif shutil.which('nvidia-smi'):
        listing = subprocess.run(['nvidia-smi', '-L'], capture_output=True, text=True).stdout
        count = len(_NVIDIA_SMI_LINE.findall(listing))
    else:
        log('neither cudadsp_info nor nvidia-smi found: no GPU workers')
    visible = os.environ.get('CUDA_VISIBLE_DEVICES')
    if visible is None:
        return [str(i) for i in range(count)]
    return [v.strip() for v in visible.split(',') if v.strip()][:count]


def start_local_cluster(gpu_pins, cpu_workers):
    '''A cluster on this host: one single-threaded worker per GPU of \\p gpu_pins
    (CUDA_VISIBLE_DEVICES values), or \\p cpu_workers CPU workers when there is none.'''
    from distributed import Nanny, Scheduler, SpecCluster

    def worker(env):
        # A nanny starts the worker in a fresh process (multiprocessing "spawn") and
        # sets env there before the worker imports anything; it restarts a worker
        # that died, for the pairs still to come.
        return {'cls': Nanny, 'options': {'nthreads': 1, 'host': '127.0.0.1',
                                          'env': env, 'silence_logs': logging.ERROR}}

    if gpu_pins:
        workers = {f'gpu{pin}': worker({'CUDA_VISIBLE_DEVICES': pin}) for pin in gpu_pins}
    else:
        workers = {f'cpu{i}': worker({}) for i in range(cpu_workers)}
    scheduler = {'cls': Scheduler, 'options': {'host': '127.0.0.1', 'port': 0,
                                               'dashboard': False, 'allowed_failures': 0}}
    return SpecCluster(workers=workers, scheduler=scheduler, silence_logs=logging.ERROR)


def _close_local_cluster(cluster, client):
    # A nanny restarts a worker that died; closing the cluster while that worker is
    # still starting makes distributed 2022.12 close it twice (a traceback on stderr,
    # nothing worse), so the driver waits for it first.
    try:
        client.wait_for_workers(len(cluster.worker_spec), timeout=30)
    except TimeoutError:
        pass
    client.close()
    cluster.close()


def _check_workers(client, worker_wait_s):
    '''Workers of an existing scheduler: at least one, each with one thread.'''
    try:
        client.wait_for_workers(1, timeout=worker_wait_s)
    except TimeoutError:
        raise TimeoutError(f'no worker joined the scheduler in {worker_wait_s:g} s '
                           '(--worker-wait)') from None
    threads = client.nthreads()
    crowded = [address for address, n in threads.items() if n != 1]
    if crowded:
        raise ValueError(f'--scheduler: workers {", ".join(crowded)} have more than one '
                         f'thread; start each with dask-worker --nthreads 1 (one pair '
                         f'at a time on its GPU)')
    return threads


NOT_RUN = offset_stack.NOT_RUN
# How often the driver looks at its running pairs and at the workers (seconds).
POLL_S = 0.2


class stack_stopped(Exception):
    '''The stack cannot go on (the scheduler is lost, no worker is left): the message
    says why; the pairs not completed are in the summary as such.'''


def not_run(pair, message):
    return stack_report(pair.name, NOT_RUN, '', '', 0.0, message)


def run_stack(client, pairs, settings, reports, log, worker_wait_s, progress):
    '''
    Runs every pair as a task on \\p client's workers, no more at once than there are
    workers; fills \\p reports (one stack_report a pair, in the order of \\p pairs)
    as they complete, logging each and calling progress(). Raises stack_stopped when
    the scheduler is lost or no worker has been there for \\p worker_wait_s seconds,
    after giving the pairs still running their row.
    '''
    from distributed.scheduler import KilledWorker

    waiting = list(reversed(range(len(pairs))))
    running = {}   # future: (pair index, submission time)
    done = 0
    workers_seen = time.monotonic()
    while waiting or running:
        try:
            workers = len(client.nthreads())
        except OSError:   # distributed's CommClosedError: the status says if it lasts
            workers = 0
        if client.status != 'running':
            _give_up(pairs, reports, running, 'scheduler lost')
        now = time.monotonic()
        if workers:
            workers_seen = now
        elif now - workers_seen > worker_wait_s:
            _give_up(pairs, reports, running, f'no worker for {worker_wait_s:g} s '
                     '(the workers died or left the scheduler)')
        while waiting and len(running) < max(1, workers):
            index = waiting.pop()
            future = client.submit(run_pair_task, pairs[index], settings, pure=False,
                                   retries=0, key=f'cudadsp_stack-{index}-{uuid.uuid4()}')
            running[future] = (index, now)
            reports[index] = not_run(pairs[index], RUNNING)
        # A lost scheduler cancels every future: those are the scheduler's failure,
        # reported by _give_up() above, not the pairs'.
        finished = [f for f in running if f.done() and not (
            f.cancelled() and client.status != 'running')]
        if not finished:
            time.sleep(POLL_S)
            continue
        for future in finished:
            index, submitted_at = running.pop(future)
            name = pairs[index].name
            try:
                report = future.result()
            except KilledWorker as error:
                worker = error.last_worker
                report = stack_report(
                    name, 'failed', str(worker.name), '', time.monotonic() - submitted_at,
                    f'{WORKER_DIED} while running the pair (worker process killed or '
                    f'crashed: {worker.address})')
            except Exception as error:   # the task's own failure, or the scheduler's
                report = stack_report(name, 'failed', '', '',
                                      time.monotonic() - submitted_at,
                                      f'{type(error).__name__}: {error}'.rstrip(': '))
            future.release()
            reports[index] = report
            done += 1
            where = ', '.join(filter(None, (report.worker, report.device)))
            line = f'pair {done} of {len(pairs)} {report.status}: {name} ({where}, ' \
                   f'{report.seconds:.3f} s)'
            log(line + (f': {report.message}' if report.message else ''))
            progress()


def _give_up(pairs, reports, running, reason):
    '''The pairs handed out and not come back get a "failed" row saying why and
    that the worker may still complete the pair; then stack_stopped.'''
    for future, (index, submitted_at) in running.items():
        reports[index] = stack_report(
            pairs[index].name, 'failed', '', '', time.monotonic() - submitted_at,
            f'{reason} while the pair ran; its folder holds this run\'s outputs only if '
            'a worker still completes it')
        future.release()
    running.clear()
    raise stack_stopped(reason)


def write_summary(reports, prefix, heading):
    '''PREFIX.md and PREFIX.csv: one row a pair (pair, status, worker, device, seconds,
    message), one output_set: both are replaced together, or neither.'''
    names = [f.name for f in dataclasses.fields(stack_report)]
    rows = [(r.pair, r.status, r.worker, r.device, f'{r.seconds:.3f}', r.message)
            for r in reports]
    table = io.StringIO()
    writer = csv.writer(table, lineterminator='\n')
    writer.writerow(names)
    writer.writerows(rows)

    def cell(text):
        return text.replace('|', '\\|').replace('\n', ' ')

    lines = [f'# {heading}', '', '| ' + ' | '.join(names) + ' |',
             '|---|---|---|---|---:|---|']
    lines += ['| ' + ' | '.join(cell(c) for c in row) + ' |' for row in rows]
    text = '\n'.join(lines) + '\n'
    folder, name = os.path.split(os.path.abspath(prefix))
    with output_set.output_set(folder, [name + '.csv', name + '.md']) as files:
        files.write(name + '.csv', lambda f: f.write(table.getvalue().encode()))
        files.write(name + '.md', lambda f: f.write(text.encode()))


def parse_arguments(argv):
    parser = argparse.ArgumentParser(
        prog='cudadsp_stack',
        description='Stacks of InSAR pairs across GPUs and machines (Dask): one task a '
                    'pair, one worker a GPU.',
        epilog=documentation.see_also('apps/cudadsp_stack.md'))
    parser.add_argument('--kind', required=True, choices=('xcorr', 'offsets'),
                        help='xcorr: GMTSAR PRM pairs through cudadsp_xcorr; offsets: '
                             'dense offsets of raster pairs')
    parser.add_argument('--pairs', required=True,
                        help='pair list: "REFERENCE SECONDARY [OUTPUT_FOLDER]" a line '
                             '(xcorr: MASTER.PRM ALIGNED.PRM)')
    parser.add_argument('--output-root', default='.',
                        help='where the default output folders go: ROOT/<ref>_<sec> '
                             '(default: the current folder)')
    parser.add_argument('--summary', help='summary table prefix: PREFIX.md, PREFIX.csv '
                                          '(default ROOT/stack_summary)')
    parser.add_argument('--scheduler', help='address of an existing dask-scheduler '
                                            '(tcp://HOST:8786); default: a local cluster')
    parser.add_argument('--gpus', help='local cluster: the GPUs to use, a worker each, '
                                       'as CUDA_VISIBLE_DEVICES values "0,2" (default: '
                                       'every GPU found)')
    parser.add_argument('--workers', type=int,
                        help='local cluster without GPUs (or --device cpu): the number '
                             'of CPU workers (default 1)')
    parser.add_argument('--worker-wait', type=float, default=WORKER_WAIT_S,
                        metavar='SECONDS',
                        help='how long the driver waits without any worker, at the start '
                             'or when every worker died or left, before it gives up the '
                             f'pairs not done (default {WORKER_WAIT_S})')
    parser.add_argument('--xcorr', help='the cudadsp_xcorr program (default: next to '
                                        'this tool, on PATH, or in the build tree)')
    parser.add_argument('--xcorr-options', default='',
                        help='xcorr: cudadsp_xcorr options for every pair, one string '
                             '("-nx 20 -ny 50 -xsearch 128 -ysearch 128")')
    # Its --device (auto, cpu or cuda here) is what every pair runs on: auto gives a
    # local cluster GPU workers where there are GPUs, else CPU workers.
    offset_stack.add_offsets_arguments(parser)
    return parser.parse_args(argv)


def _offsets_options(arguments):
    '''The dense-offset options, checked once here rather than by every pair (an
    engine on the CPU refuses what any would); with --kind xcorr, none may be given.'''
    options = offset_stack.options_from_arguments(arguments)
    if arguments.kind == 'offsets':
        if arguments.xcorr_options:
            raise ValueError('--xcorr-options: for --kind xcorr; with --kind offsets give '
                             'the dense-offset options themselves')
        dense_offsets_engine(**{**options.engine_configuration(), 'device': 'cpu'})
        return options
    defaults = offset_stack.offsets_options(device=options.device)
    given = [f.name for f in dataclasses.fields(options)
             if getattr(options, f.name) != getattr(defaults, f.name)]
    if given:
        raise ValueError(f'{", ".join(given)}: dense-offset options, for --kind offsets')
    return None


def _resolve_settings(arguments, tool_path):
    if not arguments.worker_wait > 0:
        raise ValueError(f'--worker-wait: {arguments.worker_wait:g}: more than 0 seconds')
    if arguments.device not in ('auto', 'cpu', 'cuda'):
        raise ValueError(f'--device: {arguments.device}: auto, cpu or cuda (a worker '
                         f'sees one GPU, its own; choose GPUs with --gpus)')
    xcorr_program = ''
    xcorr_options = ()
    if arguments.kind == 'xcorr':
        xcorr_program = arguments.xcorr or find_program('cudadsp_xcorr', tool_path)
        if not xcorr_program:
            raise ValueError('--xcorr: cudadsp_xcorr is not next to this tool, on PATH '
                             'or in the build tree; give its path')
        if not (os.path.isfile(xcorr_program) and os.access(xcorr_program, os.X_OK)):
            raise ValueError(f'--xcorr: {xcorr_program}: not an executable file')
        xcorr_options = tuple(shlex.split(arguments.xcorr_options))
        xcorr_pair.check_xcorr_options(xcorr_options)
    return stack_settings(
        kind=arguments.kind, device=arguments.device,
        xcorr_program=os.path.abspath(xcorr_program) if xcorr_program else '',
        xcorr_options=xcorr_options, slc_base=os.getcwd(),
        offsets_options=_offsets_options(arguments))


def _local_workers(arguments, tool_path, log):
    '''GPU pins or a CPU worker count for the local cluster; the device pairs run on.'''
    if arguments.workers is not None and arguments.workers < 1:
        raise ValueError(f'--workers: {arguments.workers}: at least 1')
    if arguments.device == 'cpu':
        if arguments.gpus:
            raise ValueError('--gpus: not with --device cpu')
        return [], arguments.workers or 1, 'cpu'
    if arguments.gpus:
        pins = [p.strip() for p in arguments.gpus.split(',')]
        if not all(p.isdigit() for p in pins) or len(set(pins)) != len(pins):
            raise ValueError(f'--gpus: {arguments.gpus}: distinct GPU indices, comma '
                             f'separated ("0,2")')
    else:
        pins = find_gpus(find_program('cudadsp_info', tool_path), log)
    if pins:
        if arguments.workers is not None:
            raise ValueError('--workers: with GPUs there is one worker a GPU (choose them '
                             'with --gpus, or run on CPU workers with --device cpu)')
        return pins, 0, 'cuda'
    if arguments.device == 'cuda':
        raise ValueError('--device cuda: no CUDA device found on this host')
    return [], arguments.workers or 1, 'cpu'


def main(argv, tool_path):
    from distributed import Client

    def log(text):
        print(f'cudadsp_stack: {text}', file=sys.stderr, flush=True)

    arguments = parse_arguments(argv)
    started = time.monotonic()
    try:
        settings = _resolve_settings(arguments, tool_path)
        # Paths come back absolute: workers elsewhere see the same files.
        pairs = offset_stack.read_pair_list(arguments.pairs, arguments.output_root)
        summary = arguments.summary or os.path.join(arguments.output_root, 'stack_summary')
        if arguments.scheduler:
            if arguments.gpus or arguments.workers is not None:
                raise ValueError('--gpus, --workers: for the local cluster; with '
                                 '--scheduler the workers are those started for it')
            cluster = None
            # The driver reports a lost scheduler itself, once: distributed's own
            # messages about it are tracebacks, dozens of lines.
            logging.getLogger('distributed').setLevel(logging.CRITICAL)
            client = Client(arguments.scheduler)
            where = f'scheduler {arguments.scheduler}'
        else:
            pins, cpu_workers, settings.device = _local_workers(arguments, tool_path, log)
            if settings.offsets_options is not None:
                settings.offsets_options.device = settings.device
            cluster = start_local_cluster(pins, cpu_workers)
            client = Client(cluster)
            where = (f'local cluster, GPUs {",".join(pins)}' if pins
                     else f'local cluster, {cpu_workers} CPU workers')
    except (ValueError, OSError) as error:
        log(f'error: {error}')
        return 1
    reports = [not_run(p, NOT_REACHED) for p in pairs]

    def summarise(state):
        counts = ', '.join(f'{sum(r.status == s for r in reports)} {s}'
                           for s in ('ok', 'failed', NOT_RUN))
        outcome = (f'{len(reports)} pairs ({arguments.kind}), {counts}, '
                   f'{time.monotonic() - started:.1f} s ({where})')
        write_summary(reports, summary, f'cudadsp_stack: {outcome}'
                      + (f' ({state})' if state else ''))
        return outcome

    try:
        stopped, status = _run_and_close(client, cluster, pairs, settings, reports,
                                         arguments, where, summarise, log)
        outcome = summarise(stopped)
    except OSError as error:
        log(f'error: --summary: {summary}: {error.strerror or error}')
        return 1
    log(f'{outcome}{"; " + stopped if stopped else ""}; summary in {summary}.md and '
        f'{summary}.csv')
    failed = any(r.status != 'ok' for r in reports)
    return status if status is not None else (1 if failed else 0)


def _run_and_close(client, cluster, pairs, settings, reports, arguments, where,
                   summarise, log):
    '''The stack on \\p client, the summary kept up to date, the cluster closed at
    the end. Returns (why it stopped early or '', the exit status it sets or None).
    The pairs not completed keep their "not run" row, saying why.'''
    stopped, status = '', None
    try:
        with output_set.interrupt_on_signals():
            try:
                summarise('running')
                workers = _check_workers(client, arguments.worker_wait)
                log(f'{len(pairs)} pairs ({arguments.kind}) on {len(workers)} workers '
                    f'({where})')
                run_stack(client, pairs, settings, reports, log, arguments.worker_wait,
                          lambda: summarise('running'))
            finally:
                _close(cluster, client)
    except output_set.interrupted as signal:
        stopped, status = str(signal), signal.exit_status
    except (stack_stopped, ValueError, TimeoutError) as error:
        stopped, status = str(error) or type(error).__name__, 1
    except output_set.output_error:
        raise
    except OSError as error:   # distributed's CommClosedError, and the like
        stopped, status = f'scheduler lost ({error})', 1
    if stopped:
        log(f'error: {stopped}')
        for index, report in enumerate(reports):
            if report.status == NOT_RUN:
                reports[index] = not_run(pairs[index], (
                    f'{stopped} while it ran' if report.message == RUNNING
                    else f'not reached: {stopped}'))
    return stopped, status


def _close(cluster, client):
    if cluster is not None:
        _close_local_cluster(cluster, client)
    else:
        client.close()
