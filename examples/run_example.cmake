# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later

# ctest driver for one example: grcc FLOWGRAPH into WORKDIR, run the generated script
# with its bounded defaults on the CPU backend, then <name>_plot.py beside the
# flowgraph, when there is one, on what the run wrote. With COMPILE_ONLY (a QT GUI
# flowgraph, which runs until its window is closed), the generated script is only
# byte-compiled.
file(REMOVE_RECURSE ${WORKDIR})
file(MAKE_DIRECTORY ${WORKDIR})
execute_process(COMMAND ${GRCC} -o ${WORKDIR} ${FLOWGRAPH} RESULT_VARIABLE rc)
if(rc)
    message(FATAL_ERROR "grcc failed on ${FLOWGRAPH}")
endif()
get_filename_component(name ${FLOWGRAPH} NAME_WE)
get_filename_component(folder ${FLOWGRAPH} DIRECTORY)
if(COMPILE_ONLY)
    execute_process(COMMAND ${PYTHON} -m py_compile ${WORKDIR}/${name}.py RESULT_VARIABLE rc)
    if(rc)
        message(FATAL_ERROR "${name}.py does not compile (${rc})")
    endif()
    return()
endif()
execute_process(COMMAND ${PYTHON} ${WORKDIR}/${name}.py --device cpu --outdir ${WORKDIR}
                WORKING_DIRECTORY ${WORKDIR} RESULT_VARIABLE rc)
if(rc)
    message(FATAL_ERROR "${name}.py failed (${rc})")
endif()
if(EXISTS ${folder}/${name}_plot.py)
    execute_process(COMMAND ${PYTHON} ${folder}/${name}_plot.py --outdir ${WORKDIR}
                    RESULT_VARIABLE rc)
    if(rc)
        message(FATAL_ERROR "${name}_plot.py failed (${rc})")
    endif()
endif()
