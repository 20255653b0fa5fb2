# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later

# ctest driver: build a C++ project against the module installed in PREFIX and run it.
#
#   SOURCE      the project's folder; or, with FLOWGRAPH, the folder grcc writes it to
#   FLOWGRAPH   optional: a .grc with output_language cpp, generated with grcc first,
#               the installed GRC blocks and Python module resolving its blocks
#   PROGRAM     optional: the executable the project builds, run in WORKDIR/run;
#               without it the project is only built
#   CHECK       optional: a command (a ;-list) run in WORKDIR/run afterwards
#   PREFIX, LIBRARY_DIR, PYTHON_DIR, GRC_BLOCKS_DIR   the install and its layout
#   GRCC, WORKDIR
file(REMOVE_RECURSE ${WORKDIR})
file(MAKE_DIRECTORY ${WORKDIR}/run)
# No LD_LIBRARY_PATH: the installed libraries find each other through their RPATH, and
# the program finds them through the one CMake gives it (docs/install_prefix.md).
unset(ENV{LD_LIBRARY_PATH})

function(run_step what)
    execute_process(COMMAND ${ARGN} WORKING_DIRECTORY ${WORKDIR}/run RESULT_VARIABLE rc)
    if(rc)
        message(FATAL_ERROR "${what} failed (${rc})")
    endif()
endfunction()

if(FLOWGRAPH)
    set(ENV{GRC_BLOCKS_PATH} "${PREFIX}/${GRC_BLOCKS_DIR}")
    set(ENV{PYTHONPATH} "${PREFIX}/${PYTHON_DIR}")
    set(ENV{GR_DONT_LOAD_PREFS} 1)
    run_step("grcc" ${GRCC} -o ${WORKDIR} ${FLOWGRAPH})
    # grcc names the folder after the flowgraph's id, which is its file name here.
    get_filename_component(name ${FLOWGRAPH} NAME_WE)
    set(SOURCE ${WORKDIR}/${name})
endif()

run_step("configure" ${CMAKE_COMMAND} -S ${SOURCE} -B ${WORKDIR}/build
    -DCMAKE_PREFIX_PATH=${PREFIX} -DCMAKE_BUILD_TYPE=Release)
run_step("build" ${CMAKE_COMMAND} --build ${WORKDIR}/build)
if(PROGRAM)
    run_step("${PROGRAM}" ${WORKDIR}/build/${PROGRAM})
endif()
if(CHECK)
    run_step("check" ${CHECK})
endif()
