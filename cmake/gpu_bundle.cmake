# cmake/gpu_bundle.cmake - target `gpu-bundle`: the relocatable GPU-host
# bundle (deploy/gpu/make-bundle.sh) from this build tree into
# <source>/dist/pascal-gpu-host. `make gpu-bundle` wraps it with a dedicated
# Release build for the chosen CUDA architectures (docs/gpu.md).
set(_pascal_bundle_deps pascald pascal-agent pascal_cli)
if(PASCAL_HAVE_CUDA)
  list(APPEND _pascal_bundle_deps pascal_cuda_backend gpu_kernels gpu_cuda_offline)
endif()
add_custom_target(gpu-bundle
  COMMAND bash ${PROJECT_SOURCE_DIR}/deploy/gpu/make-bundle.sh ${CMAKE_BINARY_DIR}
          ${PROJECT_SOURCE_DIR}/dist/pascal-gpu-host
  DEPENDS ${_pascal_bundle_deps}
  COMMENT "GPU-host bundle -> dist/pascal-gpu-host"
  VERBATIM)
