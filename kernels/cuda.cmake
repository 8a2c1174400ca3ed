# kernels/cuda.cmake - builds libpascal_kernels (the CUDA benchmark kernels
# and their host-side reference checks). Included by kernels/CMakeLists.txt
# only when cmake/cuda.cmake found a toolkit (PASCAL_HAVE_CUDA).
#
# Architectures: PASCAL_CUDA_ARCHITECTURES (calibrator/cuda/languages.cmake:
# this machine's GPUs, else sm_90 and its PTX).
include(${CMAKE_CURRENT_LIST_DIR}/../calibrator/cuda/languages.cmake)

set(PASCAL_TMA_PRIMING "d-1" CACHE STRING
    "TMA priming count n_p of the open scan: d-1 (paper's GB10 binary) or d (Thor binary)")
set_property(CACHE PASCAL_TMA_PRIMING PROPERTY STRINGS d-1 d)
if(PASCAL_TMA_PRIMING STREQUAL "d")
  set(_pascal_prime_extra 1)
elseif(PASCAL_TMA_PRIMING STREQUAL "d-1")
  set(_pascal_prime_extra 0)
else()
  message(FATAL_ERROR "PASCAL_TMA_PRIMING must be d-1 or d, not '${PASCAL_TMA_PRIMING}'")
endif()

add_library(pascal_kernels STATIC
  ${CMAKE_CURRENT_LIST_DIR}/static_scan.cu
  ${CMAKE_CURRENT_LIST_DIR}/open_scan.cu
  ${CMAKE_CURRENT_LIST_DIR}/occupancy.cu
  ${CMAKE_CURRENT_LIST_DIR}/gemm.cu
  ${CMAKE_CURRENT_LIST_DIR}/attention.cu
  ${CMAKE_CURRENT_LIST_DIR}/util.cu
  ${CMAKE_CURRENT_LIST_DIR}/peaks.cu
  ${CMAKE_CURRENT_LIST_DIR}/preload.cu
  ${CMAKE_CURRENT_LIST_DIR}/reference.cpp)
target_include_directories(pascal_kernels PUBLIC ${CMAKE_CURRENT_LIST_DIR})
# the grouped raster (pascal/gemm_raster.h) is the C core's, compiled here too
target_include_directories(pascal_kernels PRIVATE ${CMAKE_CURRENT_LIST_DIR}/../core/include)
target_compile_definitions(pascal_kernels PRIVATE PASCAL_TMA_PRIME_EXTRA=${_pascal_prime_extra})
target_link_libraries(pascal_kernels PUBLIC CUDA::cudart)
set_target_properties(pascal_kernels PROPERTIES
  CUDA_ARCHITECTURES "${PASCAL_CUDA_ARCHITECTURES}"
  POSITION_INDEPENDENT_CODE ON)
