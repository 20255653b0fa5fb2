#!/usr/bin/env python3
#
# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
"""tools/gpu-sanitize on a fake bundle with a fake compute-sanitizer (no GPU needed).

The bundle's "tests" are shell scripts printing what the runner (tests/support/
qa_main.cc) prints; the fake compute-sanitizer runs its target, counts the lines the
target marks as a finding and prints the summary lines the real tool prints. Checks
which runs are made, how each is judged (clean, findings, failed, timeout, no summary,
not run), the table, the JSON, the log archive and the exit status.

  qa_gpu_sanitize.py --tool tools/gpu-sanitize
"""

import argparse
import json
import os
import pathlib
import stat
import subprocess
import sys
import tarfile
import tempfile
import time

# The fake compute-sanitizer: options as the real one takes them, then the target.
FAKE_SANITIZER = r"""#!/usr/bin/env bash
tool=memcheck; findings_exit=0
while [ $# -gt 0 ]; do
    case "$1" in
        --tool) tool=$2; shift 2 ;;
        --error-exitcode) findings_exit=$2; shift 2 ;;
        --target-processes|--report-api-errors|--leak-check) shift 2 ;;
        --*) echo "fake compute-sanitizer: unknown option $1" >&2; exit 99 ;;
        *) break ;;
    esac
done
echo "========= COMPUTE-SANITIZER"
output=$(mktemp)
"$@" > "$output" 2>&1
status=$?
cat "$output"
if grep -q FAKE-CRASH "$output"; then rm -f "$output"; exit 134; fi
n=$(grep -c FAKE-FINDING "$output")
rm -f "$output"
if [ "$tool" = racecheck ]; then
    echo "========= RACECHECK SUMMARY: $n hazards displayed ($n errors, 0 warnings)"
else
    echo "========= ERROR SUMMARY: $n errors"
fi
[ "$n" -gt 0 ] && exit "$findings_exit"
exit $status
"""

# Fake tests: NAME -> shell body; each checks that the reduced mode is on.
FAKE_TESTS = {
    "qa_hangs": 'sleep 60; echo "1 passed, 0 failed, 0 skipped"',
    "qa_clean": 'echo "a[cuda] : OK [0.01 s]"; echo "b[cuda] : OK [0.01 s]"\n'
                'echo "2 passed, 0 failed, 0 skipped"; exit 0',
    "qa_skips": 'echo "rate[cuda] : skipped (rate) [0.00 s]"; echo "a[cuda] : OK [0.01 s]"\n'
                'echo "1 passed, 0 failed, 1 skipped"; exit 77',
    "qa_racy": 'echo "FAKE-FINDING"; echo "a[cuda] : OK [0.01 s]"\n'
               'echo "1 passed, 0 failed, 0 skipped"; exit 0',
    "qa_fails": 'echo "a[cuda] : FAIL [0.01 s]"; echo "0 passed, 1 failed, 0 skipped"; exit 1',
    "qa_crashes": 'echo FAKE-CRASH; exit 0',
    "qa_no_device": 'echo "a[cuda] : skipped (no CUDA device) [0.00 s]"\n'
                    'echo "0 passed, 0 failed, 1 skipped"; exit 77',
}


def write_script(path, text):
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def make_bundle(root):
    bundle = root / "bundle"
    (bundle / "bin").mkdir(parents=True)
    tests = []
    for name, body in FAKE_TESTS.items():
        # Fails unless gpu-sanitize turned the reduced mode on and passed --cuda-cases.
        write_script(bundle / "bin" / name,
                     '#!/usr/bin/env bash\n'
                     '[ "$CUDADSP_QA_SANITIZER" = 1 ] || { echo "no reduced mode"; '
                     'echo "0 passed, 1 failed, 0 skipped"; exit 1; }\n'
                     '[ "$1" = --cuda-cases ] || { echo "args: $*"; exit 2; }\n'
                     + body + "\n")
        tests.append({"name": name + "_cuda", "argv": [name, "--cuda-cases"],
                      "skip_return_code": 77})
    # A CPU entry: never run under the sanitizer.
    tests.append({"name": "qa_clean", "argv": ["qa_clean", "--no-cuda-cases"],
                  "skip_return_code": 77})
    (bundle / "tests.json").write_text(json.dumps(tests))
    write_script(bundle / "run", '#!/usr/bin/env bash\n'
                 'here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"\n'
                 'name=$1; shift; exec "$here/bin/$name" "$@"\n')
    sanitizer = root / "compute-sanitizer"
    write_script(sanitizer, FAKE_SANITIZER)
    return bundle, sanitizer


def run_tool(tool, bundle, sanitizer, out, *extra):
    return subprocess.run([sys.executable, tool, str(bundle), str(out),
                           "--sanitizer", str(sanitizer)] + list(extra),
                          capture_output=True, text=True)


def rows_by_run(out):
    rows = json.loads((out / "sanitize.json").read_text())
    return {(r["test"], r["tool"]): r for r in rows}


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tool", required=True, help="tools/gpu-sanitize")
    args = parser.parse_args()
    tool = os.path.abspath(args.tool)

    with tempfile.TemporaryDirectory(prefix="qa_gpu_sanitize-") as scratch:
        root = pathlib.Path(scratch)
        bundle, sanitizer = make_bundle(root)

        # Every CUDA test under the three default tools; the CPU entry never.
        listing = run_tool(tool, bundle, sanitizer, root / "unused", "--list")
        check(listing.returncode == 0, listing.stderr)
        runs = listing.stdout.split("\n")[:-1]
        check(len(runs) == 3 * len(FAKE_TESTS), listing.stdout)
        check(all(r.split()[0].endswith("_cuda") for r in runs), listing.stdout)
        check(runs[0].endswith(" racecheck"), "racecheck runs start first")

        # The whole set, a hanging test ended by the timeout.
        out = root / "all"
        started = time.monotonic()
        result = run_tool(tool, bundle, sanitizer, out, "--timeout", "3", "--jobs", "6")
        took = time.monotonic() - started
        check(result.returncode == 1, "exit %d\n%s" % (result.returncode, result.stderr))
        check(took < 55, "the hanging runs were not ended: %.0f s" % took)
        rows = rows_by_run(out)
        expected = {"qa_clean_cuda": "clean", "qa_skips_cuda": "clean",
                    "qa_racy_cuda": "findings", "qa_fails_cuda": "failed",
                    "qa_hangs_cuda": "timeout", "qa_crashes_cuda": "no summary",
                    "qa_no_device_cuda": "failed"}
        for (test, tool_name), row in rows.items():
            check(row["outcome"] == expected[test], "%s %s: %s" % (test, tool_name, row))
        clean = rows[("qa_clean_cuda", "memcheck")]
        check(clean["summary"] == "ERROR SUMMARY: 0 errors" and clean["passed"] == 2
              and clean["exit"] == 0, clean)
        skips = rows[("qa_skips_cuda", "synccheck")]
        check((skips["passed"], skips["skipped"], skips["exit"]) == (1, 1, 77), skips)
        racy = rows[("qa_racy_cuda", "racecheck")]
        check(racy["summary"] == "RACECHECK SUMMARY: 1 hazards displayed "
              "(1 errors, 0 warnings)" and racy["exit"] == 86, racy)
        table = (out / "sanitize.txt").read_text()
        check(table == result.stdout, "the table printed is the one written")
        check(table.splitlines()[0].split() == ["test", "tool", "outcome", "exit",
                                                "summary", "passed", "failed", "skipped",
                                                "seconds"], table)
        check(table.splitlines()[-1] == "gpu-sanitize: 21 runs: 6 clean, 6 failed, "
              "3 findings, 3 no summary, 3 timeout", table)
        check(sorted(p.name for p in out.iterdir())
              == ["sanitize-logs.tar.gz", "sanitize.json", "sanitize.txt"],
              "three files in OUTDIR")
        with tarfile.open(out / "sanitize-logs.tar.gz") as tar:
            names = sorted(m.name for m in tar.getmembers() if m.isfile())
            check(len(names) == 21 and "sanitize-logs/qa_racy_cuda.racecheck.log" in names,
                  names)
            log = tar.extractfile("sanitize-logs/qa_hangs_cuda.memcheck.log").read()
            check(b"(timeout)" in log, log)

        # A subset of tests and tools, all clean: exit 0.
        out = root / "subset"
        result = run_tool(tool, bundle, sanitizer, out, "--tests", "clean|skips",
                          "--tools", "memcheck,initcheck")
        check(result.returncode == 0, result.stdout + result.stderr)
        check(sorted(rows_by_run(out)) == [("qa_clean_cuda", "initcheck"),
                                           ("qa_clean_cuda", "memcheck"),
                                           ("qa_skips_cuda", "initcheck"),
                                           ("qa_skips_cuda", "memcheck")],
              rows_by_run(out))

        # The deadline: runs not started in time are reported, not dropped.
        out = root / "deadline"
        result = run_tool(tool, bundle, sanitizer, out, "--tests", "hangs|clean",
                          "--tools", "memcheck", "--jobs", "1", "--deadline", "8")
        rows = rows_by_run(out)
        check(result.returncode == 1 and len(rows) == 2, result.stdout)
        check(rows[("qa_hangs_cuda", "memcheck")]["outcome"] == "timeout", rows)
        check(rows[("qa_clean_cuda", "memcheck")]["outcome"] == "not run", rows)

        # Bad arguments are named.
        result = run_tool(tool, bundle, sanitizer, root / "bad", "--tools", "memchek")
        check(result.returncode == 2 and "--tools: memchek" in result.stderr,
              result.stderr)
        result = run_tool(tool, bundle, sanitizer, root / "bad", "--tests", "nothing")
        check(result.returncode != 0 and "no CUDA test" in result.stderr, result.stderr)
    print("qa_gpu_sanitize: OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
