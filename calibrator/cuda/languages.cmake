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

set(PASCAL_CUDA_ARCHITECTURES "90;100;110;120;121" CACHE STRING
    "CUDA architectures of the PASCAL kernels (sm_90 and the newest of CUDA 13.0)")

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
