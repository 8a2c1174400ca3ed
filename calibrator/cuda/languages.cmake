# calibrator/cuda/languages.cmake - language setup shared by every directory
# that builds CUDA or C++ code of the cuda backend (kernels/, calibrator/cuda/,
# tests/gpu/). Included only when PASCAL_HAVE_CUDA is ON.
#
# The top-level warning flags include C-only options (-Wstrict-prototypes,
# -Wmissing-prototypes) that g++ warns about and nvcc rejects, so this
# directory's inherited options are replaced by per-language equivalents.
enable_language(CXX)
enable_language(CUDA)
find_package(CUDAToolkit REQUIRED)

set(CMAKE_CXX_STANDARD 17)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_CXX_EXTENSIONS OFF)
set(CMAKE_CUDA_STANDARD 17)
set(CMAKE_CUDA_STANDARD_REQUIRED ON)

# Architectures: the GPUs of this machine when nvidia-smi sees any (a GPU host
# builds for what it runs), else sm_90 with its PTX, which the driver compiles
# for any newer GPU: a machine without a GPU only needs the kernels to
# compile, and each extra architecture costs a full device compile of every
# kernel (CI's build). A bundle for other hosts names them: `make gpu-bundle
# GPU_ARCHS=...` or -DPASCAL_CUDA_ARCHITECTURES="90;100;110;120;121".
if(NOT DEFINED CACHE{PASCAL_CUDA_ARCHITECTURES})
  set(_pascal_archs "")
  find_program(PASCAL_NVIDIA_SMI nvidia-smi)
  if(PASCAL_NVIDIA_SMI)
    execute_process(COMMAND ${PASCAL_NVIDIA_SMI} --query-gpu=compute_cap --format=csv,noheader
                    OUTPUT_VARIABLE _pascal_caps RESULT_VARIABLE _pascal_smi_rc ERROR_QUIET
                    TIMEOUT 20)
    if(_pascal_smi_rc EQUAL 0)
      string(REGEX MATCHALL "[0-9]+\\.[0-9]+" _pascal_caps "${_pascal_caps}")
      foreach(cap ${_pascal_caps})
        string(REPLACE "." "" arch "${cap}")
        list(APPEND _pascal_archs ${arch})
      endforeach()
      list(REMOVE_DUPLICATES _pascal_archs)
    endif()
  endif()
  if(NOT _pascal_archs)
    set(_pascal_archs 90)
  endif()
  set(PASCAL_CUDA_ARCHITECTURES "${_pascal_archs}" CACHE STRING
      "CUDA architectures of the PASCAL kernels (default: this machine's GPUs, else 90)")
  message(STATUS "PASCAL: CUDA architectures ${PASCAL_CUDA_ARCHITECTURES}")
endif()

get_directory_property(_pascal_opts COMPILE_OPTIONS)
set(_pascal_c_opts ${_pascal_opts})
set_directory_properties(PROPERTIES COMPILE_OPTIONS "")
foreach(opt ${_pascal_c_opts})
  add_compile_options($<$<COMPILE_LANGUAGE:C>:${opt}>)
endforeach()
set(_pascal_cxx_warn -Wall -Wextra -Wshadow -Wno-unused-parameter)
add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:${_pascal_cxx_warn}>")
add_compile_options("$<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra,-Wno-unused-parameter>")
add_compile_options("$<$<COMPILE_LANGUAGE:CUDA>:-Wno-deprecated-gpu-targets>")
if(PASCAL_SANITIZE)
  add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:-fsanitize=address,undefined>"
                      "$<$<COMPILE_LANGUAGE:CXX>:-fno-sanitize-recover=undefined>"
                      "$<$<COMPILE_LANGUAGE:CXX>:-fno-omit-frame-pointer>")
endif()
