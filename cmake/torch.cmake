# LibTorch for embpriv: 1.13 (Debian's libtorch-dev) or 2.x (a LibTorch zip, or the one inside a
# pip or conda `torch` package); docs/gpu.md.
#
# Where it is found: CMAKE_PREFIX_PATH or Torch_DIR as usual, or EMBPRIV_TORCH_PYTHON=/path/to/
# python3, which asks that interpreter for torch.utils.cmake_prefix_path (the LibTorch its
# `torch` package loads) and builds the Python module for that interpreter.
#
# What LibTorch brings itself through the `torch` target of TorchConfig.cmake, so that every
# layer linking ${TORCH_LIBRARIES} gets it: its -D_GLIBCXX_USE_CXX11_ABI flag (in
# TORCH_CXX_FLAGS), its CUDA libraries (torch_cuda, c10_cuda, the CUDA runtime) and the C++
# standard it needs as a compile feature (2.x needs C++17, which embpriv uses anyway).
set(EMBPRIV_TORCH_PYTHON "" CACHE FILEPATH "A python3 whose torch package's LibTorch embpriv builds against")
if(EMBPRIV_TORCH_PYTHON)
  execute_process(COMMAND "${EMBPRIV_TORCH_PYTHON}" -c "import torch; print(torch.utils.cmake_prefix_path)"
                  OUTPUT_VARIABLE torch_python_prefix OUTPUT_STRIP_TRAILING_WHITESPACE
                  RESULT_VARIABLE torch_python_status ERROR_VARIABLE torch_python_error)
  if(NOT torch_python_status EQUAL 0)
    string(STRIP "${torch_python_error}" torch_python_error)
    string(REGEX REPLACE ".*\n" "" torch_python_error "${torch_python_error}")  # the exception's line
    message(FATAL_ERROR "EMBPRIV_TORCH_PYTHON=${EMBPRIV_TORCH_PYTHON} cannot import torch: ${torch_python_error}")
  endif()
  # Debian's python3-torch names a folder it does not ship (its LibTorch is libtorch-dev's, found
  # in the system paths); pip's and conda's ship TorchConfig.cmake there.
  if(EXISTS "${torch_python_prefix}/Torch/TorchConfig.cmake")
    list(PREPEND CMAKE_PREFIX_PATH "${torch_python_prefix}")
  endif()
  if(NOT DEFINED PYTHON_EXECUTABLE)
    set(PYTHON_EXECUTABLE "${EMBPRIV_TORCH_PYTHON}" CACHE FILEPATH "The Python of the embpriv module")
  endif()
endif()

find_package(Torch REQUIRED)

# The version, from the header (Debian's TorchConfig.cmake has no version file).
set(EMBPRIV_TORCH_VERSION "")
foreach(dir ${TORCH_INCLUDE_DIRS})
  if(NOT EMBPRIV_TORCH_VERSION AND EXISTS "${dir}/torch/version.h")
    file(STRINGS "${dir}/torch/version.h" version_line REGEX "^#define TORCH_VERSION_(MAJOR|MINOR|PATCH) ")
    string(REGEX REPLACE ".*MAJOR ([0-9]+).*MINOR ([0-9]+).*PATCH ([0-9]+).*" "\\1.\\2.\\3"
           EMBPRIV_TORCH_VERSION "${version_line}")
  endif()
endforeach()
if(EMBPRIV_TORCH_VERSION AND EMBPRIV_TORCH_VERSION VERSION_LESS 1.13)
  message(FATAL_ERROR "LibTorch ${EMBPRIV_TORCH_VERSION} in ${Torch_DIR} is older than 1.13, the oldest embpriv builds against")
endif()

# The std::string ABI: yaml-cpp is a compiled C++ library with std::string in its interface, and
# Debian builds it with the C++11 ABI; a LibTorch built with the old one (-D_GLIBCXX_USE_CXX11_ABI=0:
# PyTorch's pip wheels before 2.7, LibTorch's "Pre-cxx11 ABI" zip) forces that flag on every file
# that includes it, and the link with yaml-cpp then fails on every std::string symbol.
set(EMBPRIV_TORCH_CXX11_ABI 1)
if(TORCH_CXX_FLAGS MATCHES "_GLIBCXX_USE_CXX11_ABI=0")
  set(EMBPRIV_TORCH_CXX11_ABI 0)
  message(FATAL_ERROR "The LibTorch in ${Torch_DIR} (${EMBPRIV_TORCH_VERSION}) uses the pre-C++11 "
                      "std::string ABI (-D_GLIBCXX_USE_CXX11_ABI=0), but yaml-cpp (Debian's, or "
                      "EMBPRIV_DEPS_PREFIX's) uses the C++11 ABI: use a LibTorch built with the "
                      "C++11 ABI (conda's pytorch, pip's torch 2.7 or later, LibTorch's cxx11-ABI zip)")
endif()

set(EMBPRIV_TORCH_CUDA OFF)
if(TARGET torch_cuda OR "${TORCH_LIBRARIES}" MATCHES "cuda")
  set(EMBPRIV_TORCH_CUDA ON)
endif()
if(EMBPRIV_CUDA AND NOT EMBPRIV_TORCH_CUDA)
  message(FATAL_ERROR "EMBPRIV_CUDA=ON, but the LibTorch found in ${Torch_DIR} has no CUDA; "
                      "pass -DCMAKE_PREFIX_PATH=/path/to/a/cuda/libtorch or -DEMBPRIV_TORCH_PYTHON=$(which python3)")
endif()
if(EMBPRIV_TORCH_CUDA)
  # embpriv calls no symbol of libtorch_cuda.so; it registers the CUDA backend when loaded. A
  # linker that defaults to --as-needed (Ubuntu's) would drop it, and at::hasCUDA() would be false.
  add_link_options("LINKER:--no-as-needed")
endif()
message(STATUS "embpriv: LibTorch ${EMBPRIV_TORCH_VERSION} from ${Torch_DIR} "
               "(C++11 ABI: ${EMBPRIV_TORCH_CXX11_ABI}, CUDA: ${EMBPRIV_TORCH_CUDA})")
