find_package(PkgConfig)

PKG_CHECK_MODULES(PC_GR_CUDADSP gnuradio-cudadsp)

FIND_PATH(
    GR_CUDADSP_INCLUDE_DIRS
    NAMES gnuradio/cudadsp/api.h
    HINTS $ENV{CUDADSP_DIR}/include
        ${PC_CUDADSP_INCLUDEDIR}
    PATHS ${CMAKE_INSTALL_PREFIX}/include
          /usr/local/include
          /usr/include
)

FIND_LIBRARY(
    GR_CUDADSP_LIBRARIES
    NAMES gnuradio-cudadsp
    HINTS $ENV{CUDADSP_DIR}/lib
        ${PC_CUDADSP_LIBDIR}
    PATHS ${CMAKE_INSTALL_PREFIX}/lib
          ${CMAKE_INSTALL_PREFIX}/lib64
          /usr/local/lib
          /usr/local/lib64
          /usr/lib
          /usr/lib64
          )

include("${CMAKE_CURRENT_LIST_DIR}/gnuradio-cudadspTarget.cmake")

INCLUDE(FindPackageHandleStandardArgs)
FIND_PACKAGE_HANDLE_STANDARD_ARGS(GR_CUDADSP DEFAULT_MSG GR_CUDADSP_LIBRARIES GR_CUDADSP_INCLUDE_DIRS)
MARK_AS_ADVANCED(GR_CUDADSP_LIBRARIES GR_CUDADSP_INCLUDE_DIRS)
