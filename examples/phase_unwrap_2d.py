#!/usr/bin/env python3
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
'''
Two-dimensional phase unwrapping of interferograms with known truth, beside
scikit-image's unwrap_phase.

For every field of cudadsp.insar.interferogram_cases (simulated interferograms and
the real ISCE3 pair), unwraps with the reliability method, with least squares weighted
by coherence, with minimum-cost flow (MCF, the coherence as its noise model's, the
ISCE3 pair's 2 x 2 multilook as 4 looks), and with scikit-image when it is installed;
scores each against the truth (fraction of valid pixels with the right whole number of
cycles, RMS error) and writes:

  phase_unwrap_2d_accuracy.md   the table (also logged)
  phase_unwrap_2d_scene.png     the full simulated scene: wrapped, truth, results, errors
  phase_unwrap_2d_isce3.png     the real pair with a deformation bowl
  phase_unwrap_2d_accuracy.png  correct fraction per field and method

The table also cites SNAPHU's right-cycle fractions from issue 24 (SNAPHU 2.0.7, smooth
costs), measured outside the project on held-out fields of the same kinds, not on
these pixels: SNAPHU is neither run nor needed here.

Exits with 3 when the reliability method is less accurate than scikit-image on a field
(the requirement of issue 15) or MCF less accurate than the reliability method (issue
24's), 0 otherwise.
'''

import argparse
import os
import sys
import time

import numpy

import cudadsp
from cudadsp.common import tool_log
from cudadsp.insar import interferogram_cases
from cudadsp.insar.unwrap_metrics import score_unwrapping

try:
    from skimage.restoration import unwrap_phase as skimage_unwrap_phase
except ImportError:
    skimage_unwrap_phase = None

METHODS = ('reliability', 'weighted least squares', 'MCF', 'scikit-image')

# Issue 24's SNAPHU 2.0.7 (smooth costs) right-cycle fractions, measured outside the
# project on held-out fields: (the field of the issue, this table's field of that kind
# or None).
SNAPHU_CITED = (
    (0.9996, '1024 x 1024, 4 looks, coherence 0.9, low-coherence band, masked lake',
     None),
    (0.978, '1024 x 1024, 1 look, coherence 0.7, low-coherence band, masked lake',
     'coherence 0.7'),
    (0.991, 'ISCE3 pair, 1 look, constant phase', 'ISCE3 pair, flat'),
    (0.991, 'ISCE3 pair, 1 look, 6-cycle bowl', 'ISCE3 pair + bowl'),
)
SNAPHU_COLUMN = 'SNAPHU 2.0.7 smooth, cited (issue 24, other fields of this kind)'


def unwrap_with(method, case, looks, device):
    '''The unwrapped field (NaN where not valid) and the seconds it took; looks:
    the looks averaged into each pixel of the case (MCF's noise model).'''
    started = time.perf_counter()
    if method == 'reliability':
        result = cudadsp.unwrap_phase_2d(case.wrapped, mask=case.mask,
                                         device=device).unwrapped
    elif method == 'weighted least squares':
        result = cudadsp.unwrap_phase_2d(case.wrapped, method='least_squares',
                                         weight=case.coherence, mask=case.mask,
                                         device=device).unwrapped
    elif method == 'MCF':
        result = cudadsp.unwrap_phase_2d(case.wrapped, method='mcf',
                                         weight=case.coherence, mask=case.mask,
                                         looks=looks, device=device).unwrapped
    else:
        masked = numpy.ma.array(case.wrapped, mask=~case.mask)
        result = numpy.ma.filled(skimage_unwrap_phase(masked).astype(numpy.float64),
                                 numpy.nan)
    return result, time.perf_counter() - started


def plot_case(path, case, results, title):
    import matplotlib.pyplot as plt
    shown = [m for m in METHODS if m in results]
    figure, axes = plt.subplots(2, 1 + len(shown), figsize=(4 * (1 + len(shown)), 7.5),
                                constrained_layout=True)
    image = axes[0][0].imshow(case.wrapped, cmap='twilight', interpolation='nearest')
    axes[0][0].set_title('wrapped phase (rad)')
    figure.colorbar(image, ax=axes[0][0], shrink=0.8)
    truth = numpy.where(case.mask, case.truth, numpy.nan)
    image = axes[1][0].imshow(truth - numpy.nanmean(truth), cmap='viridis',
                              interpolation='nearest')
    axes[1][0].set_title('truth (rad)')
    figure.colorbar(image, ax=axes[1][0], shrink=0.8)
    for column, method in enumerate(shown, start=1):
        result, score = results[method]
        aligned = result - score.offset_periods * 2 * numpy.pi
        image = axes[0][column].imshow(aligned - numpy.nanmean(truth), cmap='viridis',
                                       interpolation='nearest')
        axes[0][column].set_title(f'{method} (rad)')
        figure.colorbar(image, ax=axes[0][column], shrink=0.8)
        cycles = numpy.rint((aligned - case.truth) / (2 * numpy.pi))
        image = axes[1][column].imshow(numpy.where(case.mask, cycles, numpy.nan),
                                       cmap='RdBu_r', vmin=-3, vmax=3,
                                       interpolation='nearest')
        axes[1][column].set_title(f'cycle error: {100 * score.correct_fraction:.2f} % right')
        figure.colorbar(image, ax=axes[1][column], shrink=0.8)
    for axis in axes.flat:
        axis.set_xticks([])
        axis.set_yticks([])
    figure.suptitle(title)
    figure.savefig(path, dpi=90)
    plt.close(figure)


def plot_accuracy(path, names, table):
    import matplotlib.pyplot as plt
    figure, axis = plt.subplots(figsize=(14, 4.5), constrained_layout=True)
    methods = [m for m in METHODS if any(m in table[n] for n in names)]
    snaphu = {field: fraction for fraction, _, field in SNAPHU_CITED if field}
    width = 0.8 / (len(methods) + 1)

    def offset(index):
        return (index - len(methods) / 2) * width

    for index, method in enumerate(methods):
        values = [100 * table[n][method][1].correct_fraction if method in table[n]
                  else 0 for n in names]
        axis.bar(numpy.arange(len(names)) + offset(index), values, width, label=method)
    cited = [i for i, n in enumerate(names) if n in snaphu]
    axis.bar(numpy.asarray(cited) + offset(len(methods)),
             [100 * snaphu[names[i]] for i in cited], width, color='none',
             edgecolor='black', hatch='//',
             label='SNAPHU 2.0.7, cited (issue 24, other fields of this kind)')
    axis.set_xticks(numpy.arange(len(names)))
    axis.set_xticklabels(names, rotation=15)
    axis.set_ylabel('pixels with the right cycle (%)')
    axis.set_ylim(90, 100.5)
    axis.legend(loc='upper left', bbox_to_anchor=(1.01, 1.0), fontsize='small')
    axis.grid(axis='y', alpha=0.4)
    figure.savefig(path, dpi=90)
    plt.close(figure)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0].strip())
    parser.add_argument('--device', default='auto', help='auto, cpu, cuda or cuda:N')
    parser.add_argument('--outdir', default='.')
    parser.add_argument('--size', type=int, default=512,
                        help='side of the simulated fields (default 512)')
    arguments = parser.parse_args()
    log = tool_log.tool_logger('phase_unwrap_2d')
    os.makedirs(arguments.outdir, exist_ok=True)
    methods = [m for m in METHODS if m != 'scikit-image' or skimage_unwrap_phase]
    if skimage_unwrap_phase is None:
        log.warning('scikit-image is not installed: its column stays empty '
                 '(Debian: python3-skimage)')
    # (case, looks averaged into each of its pixels)
    cases_and_looks = ([(c, 1) for c in interferogram_cases.simulated_cases(arguments.size)]
                       + [(c, 1) for c in interferogram_cases.isce3_cases(looks=1)]
                       + [(c, 4) for c in interferogram_cases.isce3_cases(looks=2)])
    cases = [case for case, _ in cases_and_looks]
    table = {}
    for case, looks in cases_and_looks:
        table[case.name] = {}
        for method in methods:
            result, seconds = unwrap_with(method, case, looks, arguments.device)
            score = score_unwrapping(result, case.truth, case.mask)
            table[case.name][method] = (result, score, seconds)
            log.info(f'{case.name}: {method}: {100 * score.correct_fraction:.3f} % right, '
                     f'RMS {score.rms_error:.3f} rad, {seconds:.3f} s')

    snaphu = {field: fraction for fraction, _, field in SNAPHU_CITED if field}
    lines = ['| field | pixels | ' + ' | '.join(
        f'{m}: right cycle, RMS (rad), time (s)' for m in methods)
             + f' | {SNAPHU_COLUMN}: right cycle |',
             '|---|---:|' + '---|' * (len(methods) + 1)]
    failures = []
    for case in cases:
        row = table[case.name]
        cells = [f'{100 * s.correct_fraction:.3f} %, {s.rms_error:.3f}, {t:.2f}'
                 for _, s, t in (row[m] for m in methods)]
        cited = f'{100 * snaphu[case.name]:.2f} %' if case.name in snaphu else ''
        lines.append(f'| {case.name} | {row[methods[0]][1].scored_pixels} | '
                     + ' | '.join(cells) + f' | {cited} |')
        if ('scikit-image' in row and row['reliability'][1].correct_fraction
                < row['scikit-image'][1].correct_fraction):
            failures.append(f'{case.name}: reliability below scikit-image')
        if row['MCF'][1].correct_fraction < row['reliability'][1].correct_fraction:
            failures.append(f'{case.name}: MCF below reliability')
    lines += ['', f'{SNAPHU_COLUMN}: SNAPHU was run outside the project, on held-out '
              'fields of the kinds below, not on the pixels of this table; issue 24 '
              'reports:']
    lines += [f'- {field}: {100 * fraction:.2f} %'
              + (f' (beside "{row}")' if row else ' (no field of this table)')
              for fraction, field, row in SNAPHU_CITED]
    markdown = '\n'.join(lines) + '\n'
    with open(os.path.join(arguments.outdir, 'phase_unwrap_2d_accuracy.md'), 'w') as f:
        f.write(markdown)
    for line in lines:
        log.info(line)

    full = next(c for c in cases if c.name == 'full scene')
    plot_case(os.path.join(arguments.outdir, 'phase_unwrap_2d_scene.png'), full,
              {m: table[full.name][m][:2] for m in methods},
              f'Simulated interferogram, {arguments.size} x {arguments.size}: topography, '
              'deformation, atmosphere, coherence 0.9, water (masked), steep slope')
    real = [c for c in cases if c.name.startswith('ISCE3') and c.name.endswith('bowl')]
    if real:
        plot_case(os.path.join(arguments.outdir, 'phase_unwrap_2d_isce3.png'), real[0],
                  {m: table[real[0].name][m][:2] for m in methods},
                  'ISCE3 pair (real speckle, correlation 0.8, one look) with a 6-cycle '
                  'deformation bowl')
    plot_accuracy(os.path.join(arguments.outdir, 'phase_unwrap_2d_accuracy.png'),
                  [c.name for c in cases], table)
    if failures:
        log.error('less accurate than required: ' + '; '.join(failures))
        return 3
    return 0


if __name__ == '__main__':
    sys.exit(main())
